package sandbox

// SeatbeltProfile is the macOS sandbox profile that confines a command as
// p says.
func SeatbeltProfile(p Plan) string { return "(version 1)\n(deny default)\n" }

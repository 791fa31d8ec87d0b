package mask

import (
	"slices"
	"testing"
)

func TestDotenvValues(t *testing.T) {
	data := []byte(`# the app
NODE_ENV=development
HOST=localhost
PORT=3000
DB_HOST=db.internal:5432
API_URL=https://api.example.com/v1
APP_NAME="My Cool App"
DEBUG=true
export DB_PASSWORD=hunter2hunter2
DATABASE_URL=postgres://app:Pa55w0rd@db/app
STRIPE_SK='sk_live_51HxYz'  
SESSION=abc123def456 # a comment
SHORT=Ab1
PRIVATE="-----BEGIN KEY-----
MIIEvQIBADANBgkqhkiG9w0B
-----END KEY-----"
ESCAPED="line1secret9\nline2secret9"
`)
	got := DotenvValues(data, nil)
	want := []string{"hunter2hunter2", "postgres://app:Pa55w0rd@db/app", "sk_live_51HxYz", "abc123def456",
		"MIIEvQIBADANBgkqhkiG9w0B", "line1secret9", "line2secret9"} // the key's BEGIN and END lines are plain
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("DotenvValues =\n%q\nwant\n%q", got, want)
	}
}

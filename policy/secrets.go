package policy

import "github.com/termhelper/termhelper/config"

// secretPaths are read-protected whatever the config says: what they hold
// lets whoever reads it act as the user (keys, tokens, cloud credentials).
// The syntax is that of the config's protected_paths.
var secretPaths = []string{
	".env*", ".ssh/", "~/.ssh/",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.kdbx",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
	".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".my.cnf", ".htpasswd",
	"credentials.json", "kubeconfig", "*.kubeconfig", ".vault-token",
	".aws/", ".azure/", ".kube/", ".gnupg/",
	"~/.docker/config.json", "~/.config/gcloud/", "~/.config/gh/", "~/.config/hub",
	"~/.password-store/", "~/.local/share/keyrings/", "~/.cargo/credentials", "~/.cargo/credentials.toml",
	"~/.gem/credentials", "~/.terraform.d/credentials.tfrc.json", "~/.config/rclone/",
	"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/",
	// The environments of processes, and shell histories, which hold the
	// tokens people typed.
	"/proc/*/environ", "/proc/*/task/*/environ",
	"~/.bash_history", "~/.zsh_history", "~/.sh_history", "~/.histfile", "~/.python_history",
	"~/.node_repl_history", "~/.psql_history", "~/.mysql_history", "~/.sqlite_history",
	"~/.local/share/fish/fish_history",
}

// writeOnly are default protected paths that are protected from writes
// only: writing them runs code or lifts rules, reading them reveals
// nothing secret.
var writeOnly = map[string]bool{".git/": true, config.FileName: true}

// newReadProtector matches the paths whose reading is asked about: the
// secrets above and the config's protected_paths (lock files are not
// secret).
func newReadProtector(pc config.PolicyConfig, root, home string, fold bool) *protector {
	pr := &protector{globAll: true, fold: fold}
	for _, raw := range secretPaths {
		pr.add(raw, root, home)
	}
	for _, raw := range pc.ProtectedPaths {
		if !writeOnly[raw] {
			pr.add(raw, root, home)
		}
	}
	return pr
}

package mask

import (
	"slices"
	"testing"
)

func TestSecretValues(t *testing.T) {
	env := []string{
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnop",
		"GITHUB_TOKEN=ghp_0123456789abcdef",
		"db_password=correct horse battery",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
		"GOOGLE_APPLICATION_CREDENTIALS=/home/u/creds.json",
		"MY_SERVICE=service-value-long", // not a secret name
		"SHORT_KEY=abc123",              // too short
		"USE_TOKEN=disabled",            // a setting
		"FEATURE_KEY=true",
		"DUP_TOKEN=ghp_0123456789abcdef",
		"EMPTY_SECRET=",
		"PATH=/usr/bin:/bin",
	}
	got := SecretValues(env, nil)
	want := []string{"/home/u/creds.json", "correct horse battery", "ghp_0123456789abcdef", "sk-proj-abcdefghijklmnop", "wJalrXUtnFEMI/K7MDENG"}
	if !slices.Equal(got, want) {
		t.Fatalf("SecretValues = %q, want %q", got, want)
	}
	got = SecretValues(env, []string{"my_service"})
	if !slices.Contains(got, "service-value-long") {
		t.Fatalf("a configured name is masked too: %q", got)
	}
	pw := SecretValues([]string{"MYSQL_PWD=mysql-pass-1", "smtp_pass=smtp-pass-2", "DB_PASSWD=db-pass-3",
		"PGPASSWORD=pg-pass-4", "SSHPASS=ssh-pass-5", "REDISCLI_AUTH=redis-pass-6", "GPG_PASSPHRASE=gpg-pass-7",
		"PWD=/home/user/project", "OLDPWD=/home/user/other", "COMPASS_HOME=/opt/compass", "PGPASSFILE=/home/u/.pgpass"}, nil)
	if want := []string{"db-pass-3", "gpg-pass-7", "mysql-pass-1", "pg-pass-4", "redis-pass-6", "smtp-pass-2", "ssh-pass-5"}; !slices.Equal(pw, want) {
		t.Fatalf("password names: %q, want %q", pw, want)
	}
	if got := SecretValues(nil, nil); len(got) != 0 {
		t.Fatalf("no env, no secrets: %q", got)
	}
}

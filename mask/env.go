package mask

import (
	"slices"
	"strings"
)

// DefaultNames are the words that make an environment variable's name look
// secret, wherever they appear in it, whatever their case.
var DefaultNames = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"}

// PasswordParts are the parts of a name, between underscores, that make it
// a password's (MYSQL_PWD, SMTP_PASS, DB_PASSWD), and PasswordNames the
// names tools read a password from that no rule above catches. PWD and
// OLDPWD are the shell's working folders, not passwords.
var (
	PasswordParts = []string{"PASS", "PASSWD", "PWD", "PASSPHRASE"}
	PasswordNames = []string{"SSHPASS", "REDISCLI_AUTH", "NPM_CONFIG__AUTH"}
)

// MinSecretLen is the shortest value taken for a secret: shorter values
// (flags, counts, short words) would mask ordinary output everywhere.
const MinSecretLen = 8

// notSecret are values of secret-looking names that are settings, not
// secrets, and common words in output.
var notSecret = []string{"true", "false", "yes", "no", "on", "off", "enabled", "disabled", "none", "null", "undefined"}

// SecretValues returns the values to mask among env ("NAME=value"): those
// of variables whose name contains one of DefaultNames, has one of
// PasswordParts between underscores, is one of PasswordNames, or is one of
// names (all compared without case). A value is skipped when it
// is shorter than MinSecretLen bytes or a setting word such as "true" or
// "disabled". Paths are kept: a base64 token may start with a slash too.
// The result is sorted and has no duplicates.
func SecretValues(env []string, names []string) []string {
	var out []string
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && IsSecret(name, value, names) {
			out = append(out, value)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SecretNames returns the names of the variables of env whose values
// SecretValues masks, in env's order.
func SecretNames(env []string, names []string) []string {
	var out []string
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && IsSecret(name, value, names) {
			out = append(out, name)
		}
	}
	return out
}

// IsSecret reports whether the variable name=value is masked: its name
// looks secret (or is one of names) and its value is no setting word.
func IsSecret(name, value string, names []string) bool {
	return secretName(name, names) && secretValue(value)
}

func secretName(name string, extra []string) bool {
	upper := strings.ToUpper(name)
	for _, w := range DefaultNames {
		if strings.Contains(upper, w) {
			return true
		}
	}
	if upper != "PWD" && upper != "OLDPWD" && slices.ContainsFunc(strings.Split(upper, "_"), isPasswordPart) {
		return true
	}
	return slices.Contains(PasswordNames, upper) || slices.ContainsFunc(extra, func(n string) bool { return strings.EqualFold(n, name) })
}

func isPasswordPart(part string) bool { return slices.Contains(PasswordParts, part) }

func secretValue(v string) bool {
	switch {
	case len(v) < MinSecretLen:
		return false
	case slices.Contains(notSecret, strings.ToLower(strings.TrimSpace(v))):
		return false
	}
	return true
}

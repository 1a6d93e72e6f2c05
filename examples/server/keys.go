package main

import (
	"fmt"
	"os"
	"strings"
)

// apiKey is one key and the name of the user it stands for.
type apiKey struct {
	key, user string
}

// apiKeys gathers the keys from -api-key (users user1, user2, … in order),
// -api-keys-file and QUANTUM_API_KEYS. The same key twice is an error: it
// would be ambiguous which user it stands for. Error messages never quote
// a key.
func apiKeys(cfg config, getenv func(string) string) ([]apiKey, error) {
	var keys []apiKey
	for i, k := range cfg.keys {
		keys = append(keys, apiKey{k, fmt.Sprintf("user%d", i+1)})
	}
	if cfg.keysFile != "" {
		fromFile, err := readKeysFile(cfg.keysFile)
		if err != nil {
			return nil, err
		}
		keys = append(keys, fromFile...)
	}
	if env := getenv("QUANTUM_API_KEYS"); env != "" {
		fromEnv, err := parseKeys("QUANTUM_API_KEYS entry", strings.NewReplacer(",", "\n").Replace(env))
		if err != nil {
			return nil, err
		}
		keys = append(keys, fromEnv...)
	}
	seen := map[string]string{}
	for _, k := range keys {
		if first, ok := seen[k.key]; ok {
			return nil, fmt.Errorf("api keys: users %q and %q have the same key", first, k.user)
		}
		seen[k.key] = k.user
	}
	return keys, nil
}

// readKeysFile reads a file of `key user` lines. It refuses a file that
// users other than its owner may read or write: the keys are secrets.
func readKeysFile(path string) ([]apiKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-api-keys-file: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("-api-keys-file %s: permissions %#o let other users read or change the keys; make it private with chmod 600 %s", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-api-keys-file: %w", err)
	}
	return parseKeys(path+": line", string(data))
}

// parseKeys reads `key user` lines; blank lines and lines starting with #
// are skipped. where names the source in errors, followed by the line
// number.
func parseKeys(where, text string) ([]apiKey, error) {
	var keys []apiKey
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s %d: want `key user` (two words), got %d words", where, i+1, len(f))
		}
		keys = append(keys, apiKey{f[0], f[1]})
	}
	return keys, nil
}

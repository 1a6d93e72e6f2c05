package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/qjobs/quantum/storage"
)

// apiKey is one key, the name of the user it stands for, and the credits
// granted to that user at start-up (when withCredits).
type apiKey struct {
	key, user   string
	credits     float64
	withCredits bool
}

// apiKeys gathers the keys from -api-key (users user1, user2, … in order,
// each granted -credits), -api-keys-file and QUANTUM_API_KEYS. The same
// key twice is an error: it would be ambiguous which user it stands for.
// Error messages never quote a key.
func apiKeys(cfg config, getenv func(string) string) ([]apiKey, error) {
	var keys []apiKey
	for i, k := range cfg.keys {
		keys = append(keys, apiKey{k, fmt.Sprintf("user%d", i+1), cfg.credits, cfg.credits > 0})
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

// readKeysFile reads a file of `key user [credits]` lines. It refuses a file that
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

// parseKeys reads `key user [credits]` lines; blank lines and lines
// starting with # are skipped. where names the source in errors,
// followed by the line number.
func parseKeys(where, text string) ([]apiKey, error) {
	var keys []apiKey
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 && len(f) != 3 {
			return nil, fmt.Errorf("%s %d: want `key user` or `key user credits`, got %d words", where, i+1, len(f))
		}
		k := apiKey{key: f[0], user: f[1]}
		if len(f) == 3 {
			c, err := parseCredits(f[2])
			if err != nil {
				return nil, fmt.Errorf("%s %d: credits %w", where, i+1, err)
			}
			k.credits, k.withCredits = c, true
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// parseCredits reads a number of credits to grant: 0 (nothing, but
// credits on) up to storage.MaxCredits.
func parseCredits(s string) (float64, error) {
	c, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(c) || c < 0 || c > storage.MaxCredits {
		return 0, fmt.Errorf("must be a number of credits from 0 to %d, got %q", int64(storage.MaxCredits), s)
	}
	return c, nil
}

// creditsOn says whether the keys turn credits on: -credits, or a key
// line with credits.
func creditsOn(cfg config, keys []apiKey) bool {
	if cfg.credits > 0 {
		return true
	}
	for _, k := range keys {
		if k.withCredits {
			return true
		}
	}
	return false
}

// grantID names a start-up grant in the ledger, so that it is recorded
// once: a restart that grants the user the same amount records nothing,
// and a new amount is granted on top of what was.
func grantID(credits float64) string {
	return "examples/server start-up grant of " + strconv.FormatFloat(credits, 'f', -1, 64) + " credits"
}

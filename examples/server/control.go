package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// minControlKey is the shortest control key the server takes.
const minControlKey = 16

// controlKey reads the control key from -control-key-file or
// QUANTUM_CONTROL_KEY ("" for none), and checks where it may be served:
// on a loopback address only, unless -control-public. A key that is also
// an API key is refused: the two are never the same.
func controlKey(cfg config, getenv func(string) string, keys []apiKey) (string, error) {
	key := ""
	switch {
	case cfg.controlFile != "":
		fi, err := os.Stat(cfg.controlFile)
		if err != nil {
			return "", fmt.Errorf("-control-key-file: %w", err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			return "", fmt.Errorf("-control-key-file %s: permissions %#o let other users read or change the key; make it private with chmod 600 %s",
				cfg.controlFile, perm, cfg.controlFile)
		}
		data, err := os.ReadFile(cfg.controlFile)
		if err != nil {
			return "", fmt.Errorf("-control-key-file: %w", err)
		}
		key = strings.TrimSpace(string(data))
		if key == "" {
			return "", fmt.Errorf("-control-key-file %s is empty", cfg.controlFile)
		}
	default:
		key = strings.TrimSpace(getenv("QUANTUM_CONTROL_KEY"))
	}
	if cfg.controlPublic && key == "" {
		return "", errors.New("-control-public needs a control key (-control-key-file or QUANTUM_CONTROL_KEY)")
	}
	if key == "" {
		return "", nil
	}
	switch {
	case len(key) < minControlKey:
		return "", fmt.Errorf("the control key has %d characters; it needs at least %d", len(key), minControlKey)
	case strings.ContainsFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }):
		return "", errors.New("the control key must be printable ASCII without spaces (it travels in the X-CONTROL-KEY header)")
	case !cfg.controlPublic && !loopback(cfg.addr):
		return "", fmt.Errorf("a control key on -addr %s, which is not a loopback address: anyone who reaches it with the key could delete every job; "+
			"listen on 127.0.0.1, or give -control-public to serve it there anyway", cfg.addr)
	}
	for _, k := range keys {
		if k.key == key {
			return "", fmt.Errorf("the control key is also the API key of user %q: give them different keys", k.user)
		}
	}
	return key, nil
}

// loopback reports whether a listen address is on the loopback interface
// only: an empty host listens on every interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

//go:build !linux

package main

import (
	"context"
	"errors"
)

type contender struct {
	name string
	bin  string
	args []string
}

// pairs reads a server's CPU time from /proc, which only Linux has.
func pairs(context.Context, contender, []contender, string, load, int, int) error {
	return errors.New("-floor and -server need Linux (/proc/PID/stat)")
}

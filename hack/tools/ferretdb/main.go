// Command ferretdb runs FerretDB v1 with its SQLite backend through the
// embeddable package: the `cmd/ferretdb` main panics on a missing version file
// when built from the module proxy. It prints the MongoDB URI it listens on as
// one JSON line on stdout and stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:0", "TCP address to listen on (port 0 picks a free one)")
	stateDir := flag.String("state-dir", "data", "directory of the SQLite databases")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	if err := run(*listen, *stateDir, *logLevel); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run(listen, stateDir, logLevel string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return err
	}
	dir, err := filepath.Abs(stateDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listen},
		Logger:    slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		return err
	}

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	line, _ := json.Marshal(map[string]string{"ready": "ferretdb", "uri": f.MongoDBURI()})
	fmt.Println(string(line))

	if err := <-done; err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

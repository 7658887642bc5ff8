// Command client calls kv/get on the toy server through the Go SDK that
// dshgen generates from kv.schema.json, and prints the kv/changed
// notifications it receives.
package main

import (
	"context"
	"fmt"
	"log"
	"os/exec"

	"example.com/kv/kvproto"
)

func main() {
	changed := make(chan kvproto.Change, 1)
	client, err := kvproto.StartClient(exec.Command("python3", "server.py"), &kvproto.ClientHandlers{
		OnKvChanged: func(_ context.Context, c kvproto.Change) { changed <- c },
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	res, err := client.KvGet(context.Background(), &kvproto.GetParams{Key: "greeting"})
	if err != nil {
		log.Fatal(err) // an error response is a *kvproto.ResponseError with its code, message and data
	}
	fmt.Printf("greeting = %q\n", *res.Value)
	if put, ok := (<-changed).(kvproto.Put); ok {
		fmt.Printf("changed: %s = %q\n", put.Key, put.Value)
	}
}

// Package storage is the scratch storage of a cluster: a Location opened from
// its URL ("gs://bucket/prefix", "file:///dir" or a plain directory path),
// whose objects are read, written, listed and deleted by name.
//
// # Usage
//
//	loc, err := storage.Open(ctx, "file:///var/pathways/scratch")
//	if err != nil { ... }
//	defer loc.Close()
//	err = loc.Put(ctx, "ckpt/100/w/0.0", data)
//	data, err = loc.Get(ctx, "ckpt/100/w/0.0")
//	sub := loc.Sub("ckpt/100") // the same storage, names relative to ckpt/100
//
// Local directories are built in. Google Cloud Storage is served by package
// storage/gcs, which registers the "gs" scheme when it is linked (import _
// ".../storage/gcs"); it is the only package of the module that imports the
// Cloud Storage client, so a program that stores nothing on GCS does not link
// it. Other schemes may be added with Register.
//
// Names are slash-separated relative paths without "." or ".." elements. A Put
// replaces the object whole: readers see the old bytes or the new ones, never
// part of them. Errors carry gRPC codes (ifrt.Code) and name the object: a
// missing object or bucket is NOT_FOUND, a refused one PERMISSION_DENIED, a
// storage that is down UNAVAILABLE (transient errors are retried first).
//
// # Concurrency and lifetimes
//
// A Location is safe for concurrent use; PutAll and GetAll run many requests
// at once. Close releases the connection of the storage it was opened on (a
// Sub shares it: close only the opened one).
package storage

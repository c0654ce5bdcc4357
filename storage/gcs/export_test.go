package gcs

// ObjectError is objectError, for tests.
var ObjectError = objectError

// WithExpiry is withExpiry, for tests.
var WithExpiry = withExpiry

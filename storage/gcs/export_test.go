package gcs

// ObjectError is objectError, for tests.
var ObjectError = objectError

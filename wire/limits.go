package wire

// Limits of the request bodies (spec: Limits). The backend refuses a value outside them with a
// validation_error naming the field, the provider checks them at plan time, and the tests of
// this package hold them to the maxLength and maximum of the OpenAPI document.
const (
	// MaxNameLength bounds the name of an instance or a snapshot, in characters.
	MaxNameLength = 64
	// MaxNoteLength bounds the note of an instance or a snapshot, in characters.
	MaxNoteLength = 512
	// MaxHostnameLength bounds a requested hostname (RFC 1123 labels), in bytes.
	MaxHostnameLength = 63
	// MaxPageSize is the largest page a list serves (spec: Pagination).
	MaxPageSize = 500
)

package service

// MinChosenKeyLength is the shortest API key an operator may choose (a seed file's api_key):
// long enough that a fixed test key is not guessed.
const MinChosenKeyLength = 32

// checkChosenKey accepts a chosen key of at least MinChosenKeyLength visible ASCII characters, so
// it travels unchanged in an X-API-Token or Authorization header.
func checkChosenKey(key string) error {
	if len(key) < MinChosenKeyLength {
		return Validation("api_key", "must be at least %d characters", MinChosenKeyLength)
	}
	for _, c := range []byte(key) {
		if c <= ' ' || c > '~' {
			return Validation("api_key", "must be visible ASCII characters without spaces")
		}
	}
	return nil
}

package resellerd

import "context"

// AccountOfKey is the id of the account whose API key key is, authenticated as the API does
// (from the key cache when the key was seen before, so a repeated key reads no row): its
// errors are the API's (401 for a missing or wrong key, 403 for a blocked account).
// `resellerd dev`'s fault rules scoped to an account match requests by it.
func (s *Server) AccountOfKey(ctx context.Context, key string) (int64, error) {
	acct, err := s.svc.Authenticate(ctx, key)
	if err != nil {
		return 0, err
	}
	return acct.ID, nil
}

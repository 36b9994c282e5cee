package fake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Signed download addresses. An operation that downloads a file (a
// query-patterns report, an authentication-attempt export) answers with a
// redirect to the file's address below /_files/, signed under the server's
// own key and valid until an expiry: the signature is the authorization,
// so the address needs no credentials, and each server signs with a key of
// its own (an address from another server is refused as changed; a
// Restore keeps the key, so an address signed before it still serves the
// file while the restored world holds it).

// signedURL returns the absolute address of path on the call's host,
// signed to be valid until until.
func (c *call) signedURL(path string, until time.Time) string {
	expires := until.Unix()
	q := "expires=" + strconv.FormatInt(expires, 10) + "&signature=" + c.s.signFile(path, expires)
	return c.absURL(path, q)
}

// signFile signs a download address: the HMAC-SHA256, under the server's
// own key, of the path and the expiry (Unix seconds).
func (s *Server) signFile(path string, expires int64) string {
	m := hmac.New(sha256.New, s.fileKey[:])
	m.Write([]byte(path + "\n" + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

// checkSigned checks the signed address r asks for at now: 403 when the
// signature does not match its path and expiry (a changed address), 410
// once the expiry has passed on the server's clock.
func (s *Server) checkSigned(r *http.Request, now time.Time) error {
	q := r.URL.Query()
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	sig, _ := hex.DecodeString(q.Get("signature"))
	if err != nil || !hmac.Equal(sig, mustHex(s.signFile(r.URL.Path, expires))) {
		return forbidden("the signature of this download address does not match it; ask the API for a new one")
	}
	if now.Unix() > expires {
		return errf(http.StatusGone, "gone", "this download address expired at %s; ask the API for a new one",
			time.Unix(expires, 0).UTC().Format(time.RFC3339))
	}
	return nil
}

// mustHex decodes a hex string this file encoded.
func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

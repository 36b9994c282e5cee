package fake

import (
	"fmt"
)

// codeExpiryJob forgets an expired authorization code, by its hash.
type codeExpiryJob struct{ hash [32]byte }

func (j codeExpiryJob) run(w *world) { delete(w.oauth.codes, j.hash) }

func (j codeExpiryJob) save() jobSnap {
	return jobSnap{Kind: "oauth_code.expire", ID: fmt.Sprintf("%x", j.hash[:])}
}

func (codeExpiryJob) keep(*saver) bool { return true }

func loadCodeExpiryJob(_ *loader, js jobSnap) (job, error) {
	var h hash32
	if err := h.UnmarshalText([]byte(js.ID)); err != nil {
		return nil, err
	}
	return codeExpiryJob{h}, nil
}

// deviceExpiryJob forgets a device authorization long after it expired, by
// the hash of its device code and its user code.
type deviceExpiryJob struct {
	hash     [32]byte
	userCode string
}

func (j deviceExpiryJob) run(w *world) {
	delete(w.oauth.devices, j.hash)
	delete(w.oauth.userCodes, j.userCode)
}

func (j deviceExpiryJob) save() jobSnap {
	return jobSnap{Kind: "oauth_device.forget", ID: fmt.Sprintf("%x", j.hash[:]), Step: j.userCode}
}

func (deviceExpiryJob) keep(*saver) bool { return true }

func loadDeviceExpiryJob(_ *loader, js jobSnap) (job, error) {
	var h hash32
	if err := h.UnmarshalText([]byte(js.ID)); err != nil {
		return nil, err
	}
	return deviceExpiryJob{h, js.Step}, nil
}

package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"1. database shop is ready",
		"2. password app (readwriter): mysql://3n8tuk2y3x09a2p5ae8e:pw_yf0gjh4pcowxo3illthm1aj5dwyu12ww1qsp2qbn@aws.connect.dbplatform.dev/shop?tls=true",
		"   read again, the password is shown: false",
		"3. resize PS_10 -> PS_40 is queued",
		"   resize is completed after 2m10s: main runs PS_40",
		"4. password app still connects to aws.connect.dbplatform.dev: true",
	)
}

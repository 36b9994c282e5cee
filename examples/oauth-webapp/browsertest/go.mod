module github.com/dbplatform/platform-go/examples/oauth-webapp/browsertest

go 1.24.0

require (
	github.com/chromedp/chromedp v0.14.2
	github.com/dbplatform/platform-go v0.0.0-00010101000000-000000000000
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/oauth2 v0.34.0 // indirect
)

require (
	github.com/chromedp/cdproto v0.0.0-20250724212937-08a3db8b4327 // indirect
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20250725192818-e39067aee2d2 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	golang.org/x/sys v0.34.0 // indirect
)

replace github.com/dbplatform/platform-go => ../../..

tool github.com/dbplatform/platform-go/examples/oauth-webapp

module github.com/dbplatform/platform-go

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/go-querystring v1.2.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	golang.org/x/oauth2 v0.34.0
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	golang.org/x/sys v0.34.0 // indirect
)

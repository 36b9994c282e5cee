package platform_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

func TestTimestampEncodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ts   platform.Timestamp
		want string
	}{
		{"UTC", platform.Timestamp{Time: time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC)}, `"2026-01-14T10:19:23.000Z"`},
		{"millis", platform.Timestamp{Time: time.Date(2026, 1, 14, 10, 19, 23, 45_000_000, time.UTC)}, `"2026-01-14T10:19:23.045Z"`},
		{"one digit of millis", platform.Timestamp{Time: time.Date(2026, 1, 14, 10, 19, 23, 7_000_000, time.UTC)}, `"2026-01-14T10:19:23.007Z"`},
		{"zero", platform.Timestamp{}, `"0001-01-01T00:00:00.000Z"`},
		{"year 9999", platform.Timestamp{Time: time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC)}, `"9999-12-31T23:59:59.999Z"`},
		{"nanos are cut", platform.Timestamp{Time: time.Date(2026, 1, 14, 10, 19, 23, 999_999_999, time.UTC)}, `"2026-01-14T10:19:23.999Z"`},
		{"offset becomes UTC", platform.Timestamp{Time: time.Date(2026, 1, 14, 11, 19, 23, 0, time.FixedZone("CET", 3600))}, `"2026-01-14T10:19:23.000Z"`},
		{"NewTimestamp", platform.NewTimestamp(time.Date(2026, 1, 14, 5, 19, 23, 123_456_789, time.FixedZone("EST", -5*3600))), `"2026-01-14T10:19:23.123Z"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.ts)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("Marshal = %s, want %s", b, tc.want)
			}
			if got, want := tc.ts.String(), tc.want[1:len(tc.want)-1]; got != want {
				t.Errorf("String() = %s, want %s", got, want)
			}
		})
	}
}

// A year outside 0..9999 has no RFC 3339 text that UnmarshalJSON would
// read back: encoding refuses it, as time.Time's does, naming the year;
// String still prints it.
func TestTimestampEncodingRefusesYearsOutOfRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ts         platform.Timestamp
		wantString string
	}{
		{"year 10000", platform.Timestamp{Time: time.Date(10000, 1, 2, 3, 4, 5, 600_000_000, time.UTC)}, "10000-01-02T03:04:05.600Z"},
		{"year -1", platform.Timestamp{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}, "-0001-01-01T00:00:00.000Z"},
		{"year 10000 after UTC", platform.Timestamp{Time: time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("W", -3600))}, "10000-01-01T00:30:00.000Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.ts)
			if err == nil || !strings.Contains(err.Error(), "year") {
				t.Errorf("Marshal = %s, %v; want an error naming the year", b, err)
			}
			if diff := cmp.Diff(tc.wantString, tc.ts.String()); diff != "" {
				t.Errorf("String() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewTimestampTruncates(t *testing.T) {
	t.Parallel()
	in := time.Date(2026, 1, 14, 11, 19, 23, 123_456_789, time.FixedZone("CET", 3600))
	got := platform.NewTimestamp(in)
	want := time.Date(2026, 1, 14, 10, 19, 23, 123_000_000, time.UTC)
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("NewTimestamp = %v, want %v in UTC", got.Time, want)
	}
}

func TestTimestampDecodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"2026-01-14T10:19:23.000Z"`, time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC)},
		{`"2026-01-14T10:19:23Z"`, time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC)},
		{`"2026-01-14T11:19:23+01:00"`, time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC)},
		{`"2026-01-14T03:19:23.5-07:00"`, time.Date(2026, 1, 14, 10, 19, 23, 500_000_000, time.UTC)},
		{`"2026-01-14T10:19:23.123456789Z"`, time.Date(2026, 1, 14, 10, 19, 23, 123_456_789, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			var got platform.Timestamp
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("Unmarshal = %v, want %v", got.Time, tc.want)
			}
		})
	}
}

func TestTimestampRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`1768385963`, `true`, `{}`, `[]`, `"2026-01-14"`, `"2026-01-14 10:19:23Z"`,
		`"2026-01-14T10:19:23"`, `"yesterday"`, `""`,
	} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			var got platform.Timestamp
			if err := json.Unmarshal([]byte(in), &got); err == nil {
				t.Errorf("Unmarshal(%s) = %v, want an error", in, got.Time)
			}
		})
	}
}

func TestTimestampNull(t *testing.T) {
	t.Parallel()
	var v struct {
		At    platform.Timestamp  `json:"at"`
		Maybe *platform.Timestamp `json:"maybe"`
	}
	if err := json.Unmarshal([]byte(`{"at": null, "maybe": null}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.At.IsZero() || v.Maybe != nil {
		t.Errorf("null decoded to %v, %v; want zero and nil", v.At, v.Maybe)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"at":"0001-01-01T00:00:00.000Z","maybe":null}`, string(b)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
}

// TestTimestampRoundTrip re-encodes decoded times in the API's layout.
func TestTimestampRoundTrip(t *testing.T) {
	t.Parallel()
	var v struct {
		At platform.Timestamp `json:"at"`
	}
	if err := json.Unmarshal([]byte(`{"at": "2026-01-14T11:19:23.25+01:00"}`), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"at":"2026-01-14T10:19:23.250Z"}`, string(b)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

package fake

import (
	"errors"
	"net/netip"
	"strings"
)

// parseCIDRs validates a list of IP addresses and CIDR ranges, parsed with
// net/netip, and returns them in canonical form ("192.0.2.1",
// "10.0.0.0/8"). field names the list in errors. A range with host bits
// set, a repeat (a bare address repeats its /32 or /128), or, with
// ipv4Only, an IPv6 address is refused.
func parseCIDRs(field string, list []string, ipv4Only bool) ([]string, error) {
	out := make([]string, 0, len(list))
	seen := map[netip.Prefix]string{}
	for _, s := range list {
		p, err := parseCIDR(s)
		if err != nil {
			return nil, unprocessable("%s: %q is not an IP address or CIDR range", field, s)
		}
		if p.Masked() != p {
			return nil, unprocessable("%s: %q has bits set past its /%d prefix; did you mean %s?", field, s, p.Bits(), p.Masked())
		}
		if ipv4Only && !p.Addr().Is4() {
			return nil, unprocessable("%s: %q is not IPv4; only IPv4 addresses and ranges are allowed", field, s)
		}
		if prev, ok := seen[p]; ok {
			return nil, unprocessable("%s: %q repeats %q", field, s, prev)
		}
		seen[p] = s
		if p.IsSingleIP() && !strings.Contains(s, "/") {
			out = append(out, p.Addr().String())
		} else {
			out = append(out, p.String())
		}
	}
	return out, nil
}

// parseCIDR parses a CIDR range, or a bare address as the range of that
// address alone.
func parseCIDR(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		return netip.ParsePrefix(s)
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a.Zone() != "" {
		return netip.Prefix{}, errors.New("an address with a zone is not a range")
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

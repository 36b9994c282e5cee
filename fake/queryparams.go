package fake

// This file holds the parsing of query parameters that several groups'
// lists and reads take.

// boolQuery parses an optional boolean query parameter.
func boolQuery(v, name string) (bool, error) {
	switch v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, badRequest("%s must be true or false, got %q", name, v)
}

// triQuery parses an optional boolean filter: nil when absent.
func triQuery(v, name string) (*bool, error) {
	if v == "" {
		return nil, nil
	}
	b, err := boolQuery(v, name)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

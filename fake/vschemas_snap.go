package fake

// loadRoutingRules restores b's routing-rules document, "" for the
// default. It must be one the API would have taken (checkRoutingRules):
// every read of it, get_branch_routing_rules and the vtctld view, parses
// it.
func loadRoutingRules(b *branchRec, text string) error {
	if text == "" {
		return nil
	}
	doc, err := jsonObject("routing_rules", text)
	if err == nil {
		err = checkRoutingRules(doc)
	}
	if err != nil {
		return err
	}
	b.x().routingRules = text
	return nil
}

// loadVSchema checks ks's VSchema, "" for the default, as update_vschema
// checks one it is sent (checkVSchema): every read of it parses it. The
// loader stores it.
func loadVSchema(ks *keyspaceRec, text string) error {
	if text == "" {
		return nil
	}
	doc, err := jsonObject("vschema", text)
	if err == nil {
		err = checkVSchema(ks, doc)
	}
	return snapCheck(err)
}

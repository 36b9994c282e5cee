package fake

import "fmt"

// AddKeyspace adds an empty, ready keyspace with the given number of shards
// to a branch, as a test's setup: a keyspace with more than one shard is
// sharded, and deployments that change its tables pass through the VSchema
// states (in_progress_vschema, in_progress_revert_vschema). Branches created
// from the branch afterwards copy the keyspace. Tables go into it with
// PushSchema and names qualified by the keyspace ("ks.table").
func (s *Server) AddKeyspace(org, database, branch, name string, shards int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("AddKeyspace", err)
	}
	if err := checkName("keyspace name", name); err != nil {
		return methodErr("AddKeyspace", err)
	}
	switch {
	case b.keyspace(name) != nil:
		return fmt.Errorf("fake: AddKeyspace: branch %s already has a keyspace %q", b.name, name)
	case shards < 1:
		return fmt.Errorf("fake: AddKeyspace: %d shards; a keyspace has at least one", shards)
	case shards > maxShards:
		return fmt.Errorf("fake: AddKeyspace: %d shards; a keyspace has at most %d", shards, maxShards)
	}
	now := s.world.clock.Now()
	ks := s.world.newKeyspace(b, name, now)
	ks.shards = shards
	ks.ready = true
	b.updated = now
	return nil
}

package platform

// Actor is who did something: a user, or a service token.
type Actor struct {
	ID string `json:"id"`
	// Type is the kind of actor: "User".
	Type        string `json:"type"`
	DisplayName string `json:"display_name"`
	AvatarURL   string `json:"avatar_url"`
}

"""Statement models: how a store's shapes map onto statements with truth status and time."""

"""The domain: rules, the card model, the verifier, money. Imports only kingsheet.core."""

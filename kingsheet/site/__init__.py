"""The phone app: `kingsheet site` builds it; its worker runs kingsheet.site.bridge."""

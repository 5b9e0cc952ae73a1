"""The REST API for mobile clients (/api/v1/): thin views over the domain packages' services and selectors."""

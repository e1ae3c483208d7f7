//! Checks answers against the vendor OpenAPI documents (filled in below).

//! Architecture invariant: the catalogue adapters know nothing of MCP, HTTP serving, storage or policy.

#[test]
fn no_protocol_server_store_or_policy_dependency() {
    let dir =
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
    let manifest = std::fs::read_to_string(format!("{dir}/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    let names: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split(['.', ' ', '=']).next())
        .filter(|n| !n.is_empty())
        .collect();
    assert!(names.contains(&"httpx"), "{names:?}");
    for banned in [
        "rmcp", "axum", "sqlx", "policy", "store", "tools", "mcp", "web",
    ] {
        assert!(
            !names.contains(&banned),
            "adapters-catalogue must not depend on {banned}"
        );
    }
}

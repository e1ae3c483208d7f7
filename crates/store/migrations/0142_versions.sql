-- A version per group of tables, so that a write invalidates only the kept answers and cached
-- reads that can depend on what it changed (`fresh.rs`): each commit that changes a table of a
-- group bumps that group's counter in the same transaction, whoever writes (the server, the
-- command line, another process on the same file). Tables outside every group (owner-page
-- sessions, OAuth clients and codes) change no version: nothing kept reads them. A key's
-- last-use stamp is not part of its authority, so writing it bumps nothing.
CREATE TABLE versions (
    grp TEXT    PRIMARY KEY,
    n   INTEGER NOT NULL
);

INSERT INTO versions (grp, n) VALUES ('authority', 0), ('requests', 0), ('changes', 0), ('audit', 0);

-- authority
CREATE TRIGGER people_insert_bumps_authority AFTER INSERT ON people BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER people_update_bumps_authority AFTER UPDATE ON people BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER people_delete_bumps_authority AFTER DELETE ON people BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER grants_insert_bumps_authority AFTER INSERT ON grants BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER grants_update_bumps_authority AFTER UPDATE ON grants BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER grants_delete_bumps_authority AFTER DELETE ON grants BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER credentials_insert_bumps_authority AFTER INSERT ON credentials BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER credentials_update_bumps_authority AFTER UPDATE OF key_id, person_id, grant_id, label, verifier, created_at, revoked_at, expires_at, kind, oauth_client_id, resource ON credentials BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER credentials_delete_bumps_authority AFTER DELETE ON credentials BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER tool_switches_insert_bumps_authority AFTER INSERT ON tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER tool_switches_update_bumps_authority AFTER UPDATE ON tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER tool_switches_delete_bumps_authority AFTER DELETE ON tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER person_tool_switches_insert_bumps_authority AFTER INSERT ON person_tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER person_tool_switches_update_bumps_authority AFTER UPDATE ON person_tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER person_tool_switches_delete_bumps_authority AFTER DELETE ON person_tool_switches BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER oauth_tokens_insert_bumps_authority AFTER INSERT ON oauth_tokens BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER oauth_tokens_update_bumps_authority AFTER UPDATE ON oauth_tokens BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;
CREATE TRIGGER oauth_tokens_delete_bumps_authority AFTER DELETE ON oauth_tokens BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'authority'; END;

-- requests
CREATE TRIGGER requests_insert_bumps_requests AFTER INSERT ON requests BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER requests_update_bumps_requests AFTER UPDATE ON requests BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER requests_delete_bumps_requests AFTER DELETE ON requests BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_rules_insert_bumps_requests AFTER INSERT ON quota_rules BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_rules_update_bumps_requests AFTER UPDATE ON quota_rules BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_rules_delete_bumps_requests AFTER DELETE ON quota_rules BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_charges_insert_bumps_requests AFTER INSERT ON quota_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_charges_update_bumps_requests AFTER UPDATE ON quota_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER quota_charges_delete_bumps_requests AFTER DELETE ON quota_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER request_library_insert_bumps_requests AFTER INSERT ON request_library BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER request_library_update_bumps_requests AFTER UPDATE ON request_library BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;
CREATE TRIGGER request_library_delete_bumps_requests AFTER DELETE ON request_library BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'requests'; END;

-- changes
CREATE TRIGGER changes_insert_bumps_changes AFTER INSERT ON changes BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER changes_update_bumps_changes AFTER UPDATE ON changes BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER changes_delete_bumps_changes AFTER DELETE ON changes BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER operations_insert_bumps_changes AFTER INSERT ON operations BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER operations_update_bumps_changes AFTER UPDATE ON operations BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER operations_delete_bumps_changes AFTER DELETE ON operations BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER idempotency_keys_insert_bumps_changes AFTER INSERT ON idempotency_keys BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER idempotency_keys_update_bumps_changes AFTER UPDATE ON idempotency_keys BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;
CREATE TRIGGER idempotency_keys_delete_bumps_changes AFTER DELETE ON idempotency_keys BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'changes'; END;

-- audit
CREATE TRIGGER audit_insert_bumps_audit AFTER INSERT ON audit BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;
CREATE TRIGGER audit_update_bumps_audit AFTER UPDATE ON audit BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;
CREATE TRIGGER audit_delete_bumps_audit AFTER DELETE ON audit BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;
CREATE TRIGGER allowance_charges_insert_bumps_audit AFTER INSERT ON allowance_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;
CREATE TRIGGER allowance_charges_update_bumps_audit AFTER UPDATE ON allowance_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;
CREATE TRIGGER allowance_charges_delete_bumps_audit AFTER DELETE ON allowance_charges BEGIN UPDATE versions SET n = n + 1 WHERE grp = 'audit'; END;

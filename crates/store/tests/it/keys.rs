//! API keys: issuing, listing, revoking, authenticating, and what is stored.

use domain::{Capability, Role};
use sha2::{Digest, Sha256};
use sqlx::Row;
use store::{ContentLimits, Error, Store};

use crate::{file_store, person, raw};

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// `key` with the character at byte `at` swapped for another allowed one.
fn tamper(key: &str, at: usize) -> String {
    let mut bytes = key.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn a_key_authenticates_to_its_person_and_grant() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let key = store
        .create_key(ana.id, "requester", Some("phone"), None)
        .await
        .unwrap();
    let text = key.secret.expose();
    assert!(text.starts_with("mq_"), "shape");
    assert_eq!(text.len(), 54);
    assert_eq!(&text[3..13], key.info.key_id);
    assert!(
        key.info
            .key_id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    );
    assert_eq!(key.info.label.as_deref(), Some("phone"));
    assert_eq!(
        (key.info.person.as_str(), key.info.grant.as_str()),
        ("ana", "requester")
    );

    let authority = store.authenticate(text).await.unwrap().unwrap();
    assert_eq!(authority.person, ana);
    assert_eq!(authority.key_id, key.info.key_id);
    assert_eq!(authority.grant.name, "requester");
    assert!(authority.grant.allows(Capability::Request));
    assert!(!authority.grant.allows(Capability::DownloadsWrite));

    // Authenticating writes nothing.
    assert_eq!(store.keys().await.unwrap(), vec![key.info]);
}

#[tokio::test]
async fn authority_is_read_fresh_on_every_call() {
    let store = Store::open_in_memory().await.unwrap();
    let kid = person(&store, "kid", Role::Kid).await;
    let key = store
        .create_key(kid.id, "reader", None, None)
        .await
        .unwrap();
    let before = store
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    assert!(before.person.limits.is_unlimited());
    let limits = ContentLimits {
        max_movie_cert: Some("PG".into()),
        ..ContentLimits::default()
    };
    store.set_limits(kid.id, &limits).await.unwrap();
    let after = store
        .authenticate(key.secret.expose())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.person.limits, limits);
}

#[tokio::test]
async fn wrong_tampered_and_malformed_keys_are_refused() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let key = store
        .create_key(ana.id, "reader", None, None)
        .await
        .unwrap();
    let text = key.secret.expose();
    assert!(store.authenticate(text).await.unwrap().is_some());

    let wrong_secret = tamper(text, text.len() - 1);
    let tampered_id = tamper(text, 5);
    let other = Store::open_in_memory().await.unwrap();
    let bad = [
        wrong_secret.as_str(),
        tampered_id.as_str(),
        "",
        "mq_",
        "Bearer x",
        &text[..text.len() - 1],
        &text[3..],
    ];
    for presented in bad {
        assert!(
            store.authenticate(presented).await.unwrap().is_none(),
            "{presented:?}"
        );
    }
    let upper = text.to_uppercase();
    let longer = format!("{text}a");
    for presented in [upper.as_str(), longer.as_str()] {
        assert!(
            store.authenticate(presented).await.unwrap().is_none(),
            "{presented:?}"
        );
    }
    // A well-formed key from nowhere.
    assert!(other.authenticate(text).await.unwrap().is_none());
}

#[tokio::test]
async fn revoked_and_expired_keys_are_refused() {
    let (_dir, store) = file_store().await;
    let ana = person(&store, "ana", Role::User).await;

    let revoked = store
        .create_key(ana.id, "reader", None, None)
        .await
        .unwrap();
    store.revoke_key(&revoked.info.key_id).await.unwrap();
    store.revoke_key(&revoked.info.key_id).await.unwrap(); // revoking again changes nothing
    assert!(
        store
            .authenticate(revoked.secret.expose())
            .await
            .unwrap()
            .is_none()
    );
    let err = store.revoke_key("nosuchkey0").await.unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");

    let past = now_ms() - 1_000;
    let expired = store
        .create_key(ana.id, "reader", None, Some(past))
        .await
        .unwrap();
    assert!(
        store
            .authenticate(expired.secret.expose())
            .await
            .unwrap()
            .is_none()
    );

    let future = now_ms() + 3_600_000;
    let live = store
        .create_key(ana.id, "reader", None, Some(future))
        .await
        .unwrap();
    assert!(
        store
            .authenticate(live.secret.expose())
            .await
            .unwrap()
            .is_some()
    );

    // An expired grant refuses every key bound to it.
    let mut conn = raw(&store).await;
    sqlx::query("UPDATE grants SET expires_at = ? WHERE name = 'reader'")
        .bind(past)
        .execute(&mut conn)
        .await
        .unwrap();
    assert!(
        store
            .authenticate(live.secret.expose())
            .await
            .unwrap()
            .is_none()
    );

    let keys = store.keys().await.unwrap();
    assert_eq!(keys.len(), 3);
    assert!(keys[0].revoked_at.is_some());
    assert_eq!(keys[1].expires_at, Some(past));
    assert_eq!(keys[2].revoked_at, None);
}

#[tokio::test]
async fn unknown_grant_or_person_is_not_found() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let err = store
        .create_key(ana.id, "superuser", None, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "unknown grant \"superuser\"; valid grants: reader, requester, operator, admin, owner"
    );
    let err = store
        .create_key(domain::PersonId(999), "reader", None, None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    assert!(store.keys().await.unwrap().is_empty());
}

#[tokio::test]
async fn only_a_verifier_is_stored() {
    let (_dir, store) = file_store().await;
    let ana = person(&store, "ana", Role::User).await;
    let key = store
        .create_key(ana.id, "reader", Some("laptop"), None)
        .await
        .unwrap();
    let text = key.secret.expose();
    let secret_part = &text[14..];

    let mut conn = raw(&store).await;
    let row = sqlx::query("SELECT * FROM credentials")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let verifier: String = row.get("verifier");
    let want = hex::encode(Sha256::digest(format!("marquee-key-v1:{text}").as_bytes()));
    assert_eq!(verifier, want);
    for column in ["key_id", "verifier", "label"] {
        let value: String = row.get(column);
        assert!(!value.contains(secret_part), "{column} holds the secret");
    }
    // Nothing in the whole database file (and its WAL) holds the secret.
    drop(conn);
    let dir = store.path().unwrap().parent().unwrap().to_owned();
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes
                .windows(secret_part.len())
                .any(|w| w == secret_part.as_bytes())
        );
    }
}

#[tokio::test]
async fn debug_output_never_shows_the_secret() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = person(&store, "ana", Role::User).await;
    let issued = store
        .create_key(ana.id, "reader", None, None)
        .await
        .unwrap();
    let text = issued.secret.expose().to_owned();
    let shown = format!("{issued:?} {:?}", store.keys().await.unwrap());
    assert!(!shown.contains(&text), "{shown}");
    assert!(!shown.contains(&text[14..]), "{shown}");
    let authority = store.authenticate(&text).await.unwrap().unwrap();
    assert!(!format!("{authority:?}").contains(&text[14..]));
}

#[tokio::test]
async fn a_label_is_one_short_line() {
    let store = Store::open_in_memory().await.unwrap();
    let ana = store.add_person("ana", Role::User).await.unwrap();
    for bad in ["phone\r\nrevoked", "tab\there", &"x".repeat(101)] {
        let refused = store
            .create_key(ana.id, "requester", Some(bad), None)
            .await
            .err();
        assert!(
            matches!(refused, Some(store::Error::Invalid(_))),
            "{bad:?}: {refused:?}"
        );
    }
    assert!(store.keys().await.unwrap().is_empty(), "nothing was made");
    let ok = "kitchen tablet ".repeat(6);
    let ok = ok.trim();
    assert!(
        store
            .create_key(ana.id, "requester", Some(ok), None)
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_key_used_gets_its_last_use_stamped_once_a_minute_and_no_version_moves() {
    let (_dir, store) = file_store().await;
    let ana = store.add_person("ana", Role::User).await.unwrap();
    let key = store
        .create_key(ana.id, "requester", Some("phone"), None)
        .await
        .unwrap();
    let stamp = |store: &Store| {
        let store = store.clone();
        async move { store.keys().await.unwrap()[0].last_used_at }
    };
    assert_eq!(stamp(&store).await, None, "never used");
    let before = store.version().unwrap();
    assert!(
        store
            .authenticate(key.secret.expose())
            .await
            .unwrap()
            .is_some()
    );
    let mut first = None;
    for _ in 0..100 {
        first = stamp(&store).await;
        if first.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(first.is_some(), "the use is stamped");
    assert_eq!(
        store.version().unwrap(),
        before,
        "a stamp is no part of the key's authority"
    );
    assert!(
        store
            .authenticate(key.secret.expose())
            .await
            .unwrap()
            .is_some()
    );
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(stamp(&store).await, first, "not again within the minute");
    assert!(
        store
            .authenticate("mq_wrongwrongwrongwrong")
            .await
            .unwrap()
            .is_none()
    );
}

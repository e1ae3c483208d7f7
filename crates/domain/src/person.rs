//! People in the household and their roles.

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// Row id of a person in the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PersonId(pub i64);

impl fmt::Display for PersonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a person is to the household. Ordered from most to least powerful.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::Display,
    strum::EnumString,
    IntoStaticStr,
    VariantArray,
    EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = PersonError,
    parse_err_fn = PersonError::unknown_role
)]
pub enum Role {
    Owner,
    Admin,
    User,
    Kid,
}

impl Role {
    /// Every role, from most to least powerful.
    pub const ALL: [Role; Role::COUNT] = *Role::VARIANTS.first_chunk().expect("COUNT variants");

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Owners and admins see everything and are never content-filtered or quota-bound.
    pub fn is_admin(self) -> bool {
        matches!(self, Role::Owner | Role::Admin)
    }
}

/// Why a text names no role.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PersonError {
    #[error(
        "unknown role \"{0}\"; valid roles: {valid}",
        valid = Role::ALL.map(Role::as_str).join(", ")
    )]
    UnknownRole(String),
}

impl PersonError {
    fn unknown_role(text: &str) -> PersonError {
        PersonError::UnknownRole(text.to_owned())
    }
}

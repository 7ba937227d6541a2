//! What a key may see, and its name in the kept entry.

use crate::api::models::ReservationDetail;

/// What the key may see. Seed 004: `payment` is present only for the account owner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    Owner,
    Member,
    /// No reservation detail has been read with this key yet (or the account has none).
    #[default]
    Unknown,
}

impl Role {
    /// What a key of this role is, in words (its badge, the badge's tone, what it sees): an
    /// owner sees payments, a member does not.
    pub fn words(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Role::Owner => ("Owner", "tone-ok", "sees payments"),
            Role::Member => ("Member", "tone-info", "billing is the account owner's"),
            Role::Unknown => ("Role not known yet", "tone-neutral", "learnt from the first reservation read"),
        }
    }

    /// Its name in the kept entry ([`crate::state::Kept`]).
    pub(super) fn name(self) -> &'static str {
        match self {
            Role::Owner => "Owner",
            Role::Member => "Member",
            Role::Unknown => "Unknown",
        }
    }

    /// The role [`Self::name`] names; any other text is `Unknown` (probed again).
    pub(super) fn named(name: &str) -> Role {
        [Role::Owner, Role::Member].into_iter().find(|role| role.name() == name).unwrap_or(Role::Unknown)
    }

    /// The role a detail read reveals.
    pub fn of(detail: &ReservationDetail) -> Role {
        Role::seeing_payment(detail.payment.is_some())
    }

    /// Only the owner's key is shown a reservation's `payment`.
    pub fn seeing_payment(shown: bool) -> Role {
        if shown {
            Role::Owner
        } else {
            Role::Member
        }
    }
}

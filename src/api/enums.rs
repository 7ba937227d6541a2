//! Enumerations the API sends as strings. Each has an explicit `Unknown` variant that keeps
//! the raw text: a value the provider adds tomorrow is shown as sent (marked unrecognised),
//! never a decode failure of the whole page.

/// The string as sent, borrowed from the text when it has no escapes: serde's own
/// `Cow<str>` always copies, and a `/nodes` answer holds three of these per node.
fn wire_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<std::borrow::Cow<'de, str>, D::Error> {
    use std::borrow::Cow;
    struct Text;
    impl<'de> serde::de::Visitor<'de> for Text {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
    }
    d.deserialize_str(Text)
}

/// Declares a string enum with its wire names and an `Unknown(String)` fallback.
macro_rules! api_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this console does not know yet, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// Every known variant, for exhaustive tests and filters.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The text as it travels on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Unknown(raw) => raw,
                }
            }

            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl From<&str> for $name {
            fn from(raw: &str) -> Self {
                match raw {
                    $($wire => $name::$variant,)+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok($name::from(wire_str(d)?.as_ref()))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

api_enum! {
    /// `status` of a reservation (seed 004).
    pub enum ReservationStatus {
        Assigning = "assigning",
        Scheduled = "scheduled",
        AwaitingPayment = "awaiting_payment",
        Active = "active",
        PastDue = "past_due",
        Suspended = "suspended",
        Ended = "ended",
    }
}

api_enum! {
    /// `billing_period` of a reservation.
    pub enum BillingPeriod {
        Monthly = "monthly",
        Quarterly = "quarterly",
    }
}

api_enum! {
    /// `payment.funding`: where each period's charge comes from.
    pub enum Funding {
        /// Taken from the account's credit when each period starts.
        Wallet = "wallet",
        /// Invoiced each period; paid under Billing → Invoices.
        Invoice = "invoice",
    }
}

api_enum! {
    /// `charges[].status`.
    pub enum ChargeStatus {
        Scheduled = "scheduled",
        Invoiced = "invoiced",
        Paid = "paid",
        CoveredByAdvance = "covered_by_advance",
        PastDue = "past_due",
        Waived = "waived",
    }
}

api_enum! {
    /// `nodes[].state`.
    pub enum NodeState {
        Ready = "ready",
        Preparing = "preparing",
        UnderMaintenance = "under_maintenance",
    }
}

api_enum! {
    /// `workloads[].kind`.
    pub enum WorkloadKind {
        GpuInstance = "gpu_instance",
        GpuCluster = "gpu_cluster",
        InferenceInstance = "inference_instance",
        FineTune = "fine_tune",
    }
}

api_enum! {
    /// The `billing` field on workloads; absent for workloads billed by the hour.
    pub enum Billing {
        Reserved = "reserved",
    }
}

api_enum! {
    /// `status` of an org reservation (seed 000).
    pub enum OrgReservationStatus {
        Pending = "pending",
        Active = "active",
        Expired = "expired",
        Cancelled = "cancelled",
        /// The node's GPU topology changed: grants nothing, withholds its units from everyone.
        NeedsReview = "needs-review",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_round_trip_through_their_wire_names() {
        for status in ReservationStatus::KNOWN {
            let json = serde_json::to_string(status).unwrap();
            assert_eq!(&serde_json::from_str::<ReservationStatus>(&json).unwrap(), status);
        }
        assert_eq!(OrgReservationStatus::from("needs-review"), OrgReservationStatus::NeedsReview);
    }

    #[test]
    fn unknown_values_are_kept_as_sent() {
        let state: NodeState = serde_json::from_str("\"hibernating\"").unwrap();
        assert_eq!(state, NodeState::Unknown("hibernating".into()));
        assert_eq!(state.as_str(), "hibernating");
        assert!(!state.is_known());
        assert_eq!(serde_json::to_string(&state).unwrap(), "\"hibernating\"");
    }

    #[test]
    fn a_value_sent_with_escapes_is_read_as_its_text() {
        let read = |json: &str| serde_json::from_str::<NodeState>(json).map_err(|e| e.to_string());
        assert_eq!(read(r#""re\u0061dy""#), Ok(NodeState::Ready));
        assert_eq!(read(r#""a\"b""#), Ok(NodeState::Unknown("a\"b".into())));
        assert_eq!(read("5"), Err("invalid type: integer `5`, expected a string at line 1 column 1".into()));
    }

    #[test]
    fn wire_names_are_case_sensitive() {
        assert_eq!(WorkloadKind::from("GPU_INSTANCE"), WorkloadKind::Unknown("GPU_INSTANCE".into()));
    }
}

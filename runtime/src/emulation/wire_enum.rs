//! [`wire_enum!`]: an enum whose values are E*TRADE's spellings, serialized as them.

/// Declares a fieldless enum whose variants stand for E*TRADE's strings: it serializes as
/// them and gets `ALL`, `as_str` and `parse`.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $wire:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        $vis enum $name {
            $($(#[$variant_meta])* #[serde(rename = $wire)] $variant,)+
        }

        impl $name {
            /// Every value, in the order E*TRADE documents them.
            pub const ALL: &[$name] = &[$($name::$variant,)+];

            /// E*TRADE's spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }

            /// The value E*TRADE spells `text` (exactly, case included).
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($wire => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

pub(super) use wire_enum;

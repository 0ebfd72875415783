//! [`wire_enum!`]: an enum whose values are E*TRADE's spellings, serialized as them.

/// Declares a fieldless enum whose variants stand for E*TRADE's strings: it serializes as
/// them, equals its spelling, and gets `ALL`, `as_str`, `parse` and the `const` check `is_wire` (which the
/// generated tool layer uses to fail the build when the spec names a value the type lacks).
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

            /// Whether E*TRADE spells one of the values `text`, usable in a `const`.
            pub const fn is_wire(text: &str) -> bool {
                $(
                    if $crate::etrade::vocabulary::same_text(text, $wire) {
                        return true;
                    }
                )+
                false
            }
        }

        /// A value equals its E*TRADE spelling.
        impl PartialEq<&str> for $name {
            fn eq(&self, text: &&str) -> bool {
                self.as_str() == *text
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use wire_enum;

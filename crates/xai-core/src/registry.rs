//! The one pattern every extension point follows: a kind is a settings struct in its
//! own file implementing the extension point's trait, and one line of a [`registry!`](crate::registry!)
//! adds it. The macro writes the YAML enum (a variant per kind, named by the line's
//! string, from which serde's "expected one of ..." error for an unknown kind is
//! built), the dispatch to the trait, and the list of names (`NAMES`). The enum also
//! derives `schemars::JsonSchema`, as every settings type does: the kinds, their
//! doc comments and their settings that commands print and the docs are generated
//! from are read off that schema ([`crate::settings`]), so none can miss a kind or a
//! setting. A line may carry only its doc comment and one `#[cfg]`.

/// A registry of kinds behind one trait.
///
/// ```
/// pub trait Shape {
///     fn area(&self) -> f64;
/// }
/// #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
/// pub struct Square {
///     side: f64,
/// }
/// impl Shape for Square {
///     fn area(&self) -> f64 {
///         self.side * self.side
///     }
/// }
/// xai_core::registry! {
///     /// A shape as written in YAML.
///     #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
///     pub enum ShapeSpec: fn shape -> dyn Shape {
///         /// A square.
///         "square" => Square(Square),
///     }
/// }
/// let s: ShapeSpec = serde_json::from_str(r#"{"square": {"side": 2.0}}"#).unwrap();
/// assert_eq!(s.shape().area(), 4.0);
/// assert_eq!(ShapeSpec::NAMES, ["square"]);
/// ```
///
/// Each line `"name" => Variant(Type),` gives the YAML name, the enum variant and the
/// settings type (which implements the trait). The enum gets `NAMES` (every kind's
/// YAML name, in registry order) and the accessor named after `fn` returning the
/// entry as the trait object; with `, fn kind` after the trait, also `kind(&self)`,
/// the entry's YAML name.
///
/// A line may carry, after its doc comment, one `#[cfg(...)]` (the variant and its
/// dispatch exist only under it; `NAMES` lists the name regardless, so a kind behind
/// a disabled feature is still named), and the settings type attributes for its
/// serde field, e.g. `"gp" => Gp(#[serde(default)] GpParams),`.
#[macro_export]
macro_rules! registry {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident: fn $get:ident -> dyn $Trait:path, fn $kind:ident {
            $(
                $(#[doc = $doc:expr])*
                $(#[cfg($cfg:meta)])?
                $name:literal => $Variant:ident($(#[$fmeta:meta])* $Ty:ty),
            )*
        }
    ) => {
        $crate::registry! {
            $(#[$meta])*
            $vis enum $Enum: fn $get -> dyn $Trait {
                $(
                    $(#[doc = $doc])*
                    $(#[cfg($cfg)])?
                    $name => $Variant($(#[$fmeta])* $Ty),
                )*
            }
        }

        impl $Enum {
            /// The entry's YAML name (one of [`Self::NAMES`]).
            pub fn $kind(&self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? $Enum::$Variant(_) => $name,)*
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident: fn $get:ident -> dyn $Trait:path {
            $(
                $(#[doc = $doc:expr])*
                $(#[cfg($cfg:meta)])?
                $name:literal => $Variant:ident($(#[$fmeta:meta])* $Ty:ty),
            )*
        }
    ) => {
        $(#[$meta])*
        #[serde(deny_unknown_fields)]
        $vis enum $Enum {
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                #[serde(rename = $name)]
                $Variant($(#[$fmeta])* $Ty),
            )*
        }

        impl $Enum {
            /// Every kind's YAML name, in registry order.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// The implementation behind this entry.
            pub fn $get(&self) -> &dyn $Trait {
                match self {
                    $($(#[cfg($cfg)])? $Enum::$Variant(k) => k,)*
                }
            }
        }
    };
}

//! Functions stay readable: none over 120 lines in the engine (`xai-bench`) or the
//! Python binding, none over 200 anywhere in the workspace (counted from the `fn`
//! line to its closing brace).

mod common;

use std::path::Path;

/// The longest function the engine and the binding may hold, in lines.
const FRONT: usize = 120;
/// The longest function anywhere, in lines.
const ANYWHERE: usize = 200;

/// Whether `line` starts a function item (`fn`, after `pub`, `pub(crate)`, `const`,
/// `async`, `unsafe` or `extern "C"`), and its name.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        for prefix in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        if let Some(r) = rest.strip_prefix("extern \"") {
            rest = r.split_once("\" ").map_or(r, |(_, r)| r);
        }
        if rest == before {
            break;
        }
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&name[..end])
}

/// `line` with its string and character literals emptied and its comment cut, so
/// that only the code's braces remain.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                // A character literal ('{', '\n'), not a lifetime ('a).
                let ahead: String = chars.clone().take(3).collect();
                if ahead.starts_with('\\') {
                    chars.nth(2);
                } else if ahead.chars().nth(1) == Some('\'') {
                    chars.nth(1);
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

/// Every function of `text` longer than `limit` lines, as (name, first line, lines).
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let (mut depth, mut opened) = (0i64, false);
        for (j, l) in lines.iter().enumerate().skip(i) {
            let code = code_of(l);
            for c in code.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth <= 0 || !opened && code.trim_end().ends_with(';') {
                if j - i + 1 > limit {
                    found.push((name.to_string(), i + 1, j - i + 1));
                }
                break;
            }
        }
    }
    found
}

#[test]
fn no_function_is_longer_than_its_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut over = Vec::new();
    for dir in ["crates", "xtask"] {
        for path in common::files_under(&root.join(dir)) {
            let rel = path.strip_prefix(&root).unwrap().display().to_string();
            if !rel.ends_with(".rs") || rel.contains("/target/") {
                continue;
            }
            let front = rel.starts_with("crates/xai-bench/src/")
                || rel.starts_with("crates/xai-python/src/");
            let limit = if front { FRONT } else { ANYWHERE };
            let text = std::fs::read_to_string(&path).unwrap();
            over.extend(
                long_functions(&text, limit)
                    .into_iter()
                    .map(|(name, line, n)| {
                        format!("{rel}:{line} `{name}`: {n} lines (limit {limit})")
                    }),
            );
        }
    }
    assert!(over.is_empty(), "functions too long:\n{}", over.join("\n"));
}

/// The counter counts a planted long function, skips braces in strings, characters
/// and comments, and reads lifetimes as no literal.
#[test]
fn the_counter_counts_a_planted_long_function() {
    let body = "    let s = \"}}\"; // }\n    let c = '{';\n".repeat(5);
    let text = format!("pub(crate) fn long<'a>(x: &'a str) {{\n{body}}}\nfn short() {{}}\n");
    assert_eq!(long_functions(&text, 11), [("long".to_string(), 1, 12)]);
    assert_eq!(long_functions(&text, 12), []);
    assert_eq!(fn_name("    pub async fn go()"), Some("go"));
    assert_eq!(fn_name("    let f = 1;"), None);
}

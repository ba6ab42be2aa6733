//! The command-line options of the dist examples (`--name value`), shared by them through
//! `#[path = "common/args.rs"] mod args;`.

/// The value after `name` on the command line, if any.
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// The number after `name`, or `default` when it is missing or not a number.
pub fn num(name: &str, default: u64) -> u64 {
    arg(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

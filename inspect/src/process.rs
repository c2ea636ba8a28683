//! Child processes bounded in time: what `inspect callgraph` and `inspect crate` run (cargo,
//! rustc, test binaries) is waited for at most a timeout, then stopped with everything it
//! started; their output is read to a bounded tail.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use crate::error::{Context, Result};

/// The last `limit` bytes of a stream, as text.
pub fn read_tail(stream: impl Read, limit: usize) -> String {
    let mut text = String::new();
    for line in BufReader::new(stream).lines().map_while(std::io::Result::ok) {
        text.push_str(&line);
        text.push('\n');
        if text.len() > 2 * limit {
            let cut = text.len() - limit;
            let cut = (cut..text.len()).find(|at| text.is_char_boundary(*at)).unwrap_or(text.len());
            text.drain(..cut);
        }
    }
    text
}

/// Wait for `child`, at most `timeout`; past it, stop the child and everything it started, and
/// return `None`. `tick` is called every 10 s of waiting.
pub fn wait_bounded(
    child: &mut Child,
    timeout: Duration,
    mut tick: impl FnMut(Duration),
) -> Result<Option<ExitStatus>> {
    let started = Instant::now();
    let mut next_tick = Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().context(|| "waiting for a child process")? {
            return Ok(Some(status));
        }
        let elapsed = started.elapsed();
        if elapsed >= timeout {
            kill_tree(child.id());
            child.wait().context(|| "waiting for a stopped child process")?;
            return Ok(None);
        }
        if elapsed >= next_tick {
            tick(elapsed);
            next_tick += Duration::from_secs(10);
        }
        std::thread::sleep(Duration::from_millis(25).min(timeout - elapsed));
    }
}

/// Stop `root` and every process it started (descendants found through `/proc`), then kill
/// them all: stopped first, so that none starts another meanwhile.
fn kill_tree(root: u32) {
    let mut stopped = BTreeSet::new();
    loop {
        let mut tree = descendants(root);
        tree.insert(root);
        let new: Vec<u32> = tree.difference(&stopped).copied().collect();
        if new.is_empty() {
            break;
        }
        for pid in new {
            signal(pid, libc::SIGSTOP);
            stopped.insert(pid);
        }
    }
    for pid in stopped {
        signal(pid, libc::SIGKILL);
    }
}

fn signal(pid: u32, signal: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    // SAFETY: `kill` only sends a signal; `pid` is positive, a process this one started or one
    // of its descendants (one that already ended makes it fail harmlessly).
    unsafe {
        libc::kill(pid, signal);
    }
}

/// The processes below `root` (children, their children, ...), from `/proc/*/stat`.
fn descendants(root: u32) -> BTreeSet<u32> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            // `pid (comm) state ppid ...`; the command name may hold spaces and parentheses.
            let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else { continue };
            if let Some(parent) = after.split_whitespace().nth(1).and_then(|ppid| ppid.parse::<u32>().ok()) {
                children.entry(parent).or_default().push(pid);
            }
        }
    }
    let mut found = BTreeSet::new();
    let mut pending = vec![root];
    while let Some(pid) = pending.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            if found.insert(*child) {
                pending.push(*child);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_child_past_its_timeout_is_stopped_with_what_it_started() {
        let mut child = Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30; wait"])
            .stdout(Stdio::null())
            .spawn()
            .expect("sh runs");
        std::thread::sleep(Duration::from_millis(200));
        let below = descendants(child.id());
        assert_eq!(below.len(), 2, "two sleeps below the shell: {below:?}");
        let started = Instant::now();
        let status = wait_bounded(&mut child, Duration::from_millis(300), |_| {}).expect("waits");
        assert!(status.is_none(), "stopped at the timeout");
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(100));
        for pid in below {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Gone, or a zombie its (killed) parent no longer waits for, until init reaps it.
            let running = state.rfind(')').is_some_and(|at| !state[at + 1..].trim_start().starts_with('Z'));
            assert!(!running, "process {pid} was killed: {state}");
        }
    }
}

//! Files searched in parallel, answered in order. Workers take files in
//! answer order and hand each file's lines on in chunks as they find
//! them; the calling thread gives the chunks of the file at the head of
//! the answer to the `Emitter` (and so to the sink, which never leaves
//! that thread) as they come, then moves to the next file. A file whose
//! unread chunks pass `HOLD` bytes waits for its turn to be read instead
//! of holding more, so memory stays flat however large a file or its
//! answer is: at most a few `HOLD`s, never a whole file's answer. Once the
//! answer is complete (the cap) or cannot be written, the remaining files
//! are not searched.

use super::sink::{Chunk, Emitter, FileSearch, Lines};
use super::GrepRequest;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Lines a worker gathers before handing them on.
const FLUSH: usize = 32 * 1024;
/// Lines of one file handed on but not yet read past which its worker
/// waits.
pub(super) const HOLD: usize = 1024 * 1024;

/// One file of the answer, in answer order.
pub(super) struct Job {
    pub(super) skill: String,
    /// The path inside the skill, as the answer shows it.
    pub(super) path: String,
    pub(super) work: Work,
}

pub(super) enum Work {
    /// Searched already (during the scan): its lines.
    Found(Chunk),
    /// To search: the file, and for a skill's own file the root it was
    /// found in (it may be a symlink to a file elsewhere in that root).
    Search(PathBuf, Option<PathBuf>),
}

/// Give every job's lines to `emitter` in order, searching the files that
/// need it on worker threads.
pub(super) fn run(
    jobs: Vec<Job>,
    matcher: &grep_regex::RegexMatcher,
    request: &GrepRequest,
    emitter: &mut Emitter<'_>,
) -> std::io::Result<()> {
    let mut names = Vec::with_capacity(jobs.len());
    let mut files = Vec::with_capacity(jobs.len());
    let mut slots = Vec::with_capacity(jobs.len());
    for job in jobs {
        names.push((job.skill, job.path));
        match job.work {
            Work::Found(lines) => {
                files.push(None);
                slots.push(Slot::found(lines));
            }
            Work::Search(path, root) => {
                let relative = names
                    .last()
                    .map(|(_, path): &(String, String)| path.clone());
                files.push(Some((path, relative.unwrap_or_default(), root)));
                slots.push(Slot::default());
            }
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8)
        .min(files.iter().flatten().count());
    let shared = Shared {
        workers: threads > 0,
        files: &files,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        state: Mutex::new(State { head: 0, slots }),
        turn: Condvar::new(),
        unreadable: Mutex::new(Vec::new()),
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| shared.work(matcher, request));
        }
        let answered = shared.answer(&names, emitter);
        // Whatever ended the answer, the workers stop.
        shared.stop.store(true, Ordering::Relaxed);
        shared.turn.notify_all();
        answered
    })?;
    // Files that could not be opened, named after the answer (the scan's
    // search names those it met before it).
    let mut unreadable =
        std::mem::take(&mut *shared.unreadable.lock().unwrap_or_else(|e| e.into_inner()));
    unreadable.sort();
    for (i, error) in unreadable {
        let (skill, path) = &names[i];
        emitter.unreadable(skill, path, &error)?;
    }
    Ok(())
}

/// What a job has handed on.
#[derive(Default)]
struct Slot {
    chunks: VecDeque<Chunk>,
    /// Bytes in `chunks`.
    queued: usize,
    /// The file's search is over: its count of matches.
    finished: Option<usize>,
}

impl Slot {
    fn found(chunk: Chunk) -> Self {
        Slot {
            queued: chunk.held(),
            finished: Some(chunk.matches),
            chunks: VecDeque::from([chunk]),
        }
    }
}

struct Shared<'a> {
    /// Some files are searched here, by workers (which wait on `turn`);
    /// otherwise every line came from the scan and nobody waits.
    workers: bool,
    files: &'a [Option<(PathBuf, String, Option<PathBuf>)>],
    /// The next job a worker takes.
    next: AtomicUsize,
    /// The answer is over: complete, or it cannot be written.
    stop: AtomicBool,
    state: Mutex<State>,
    /// Signalled when a chunk is handed on or read, a file is finished,
    /// or the answer stops.
    turn: Condvar,
    /// Jobs whose file could not be opened, with why.
    unreadable: Mutex<Vec<(usize, String)>>,
}

struct State {
    /// The job whose lines the answer is at.
    head: usize,
    slots: Vec<Slot>,
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tell waiting workers that a chunk was read or the head moved (a
    /// system call each time, so not when there are none).
    fn wake_workers(&self) {
        if self.workers {
            self.turn.notify_all();
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The calling thread's part: read the head job's chunks as they come
    /// and give them to the emitter, job after job.
    fn answer(&self, names: &[(String, String)], emitter: &mut Emitter<'_>) -> std::io::Result<()> {
        let mut state = self.lock();
        while state.head < names.len() {
            let head = state.head;
            let (skill, path) = &names[head];
            let slot = &mut state.slots[head];
            if let Some(chunk) = slot.chunks.pop_front() {
                slot.queued -= chunk.held();
                drop(state);
                self.wake_workers();
                if !emitter.lines(skill, path, &chunk)? {
                    return emitter.close(skill, path);
                }
                state = self.lock();
            } else if let Some(matches) = slot.finished {
                drop(state);
                if !emitter.end_file(skill, path, matches)? {
                    return Ok(());
                }
                state = self.lock();
                state.head += 1;
                self.wake_workers();
            } else {
                state = self.turn.wait(state).unwrap_or_else(|e| e.into_inner());
            }
        }
        Ok(())
    }

    /// A worker: search jobs in order until none is left or the answer
    /// stops.
    fn work(&self, matcher: &grep_regex::RegexMatcher, request: &GrepRequest) {
        let mut searcher = super::searcher(request);
        // The worker's own clone: its regex caches come without a lock
        // (see `THREAD_SEARCH`).
        let matcher = &matcher.clone();
        let mut kept = Lines::default();
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.files.len() || self.stopped() {
                return;
            }
            let Some((path, relative, root)) = &self.files[i] else {
                continue;
            };
            let lines = std::mem::take(&mut kept);
            let mut sink = FileSearch::new(request, lines, |lines: &mut Lines| {
                lines.held() < FLUSH || self.hand_on(i, lines)
            });
            let searched = super::search_file(
                &mut searcher,
                matcher,
                request,
                (path, relative, root.as_deref()),
                &mut sink,
            )
            .unwrap_or_else(|error| {
                self.unreadable
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, error.to_string()));
                false
            });
            let chunk = sink.lines.finish();
            kept = sink.lines;
            let mut state = self.lock();
            let slot = &mut state.slots[i];
            if searched {
                slot.queued += chunk.held();
                slot.finished = Some(chunk.matches);
                slot.chunks.push_back(chunk);
            } else {
                // Unreadable: what is not given yet is dropped.
                slot.chunks.clear();
                slot.queued = 0;
                slot.finished = Some(0);
            }
            drop(state);
            self.turn.notify_all();
        }
    }

    /// Hand job `i`'s lines on, then wait while too many of them are
    /// unread. False stops the file's search.
    fn hand_on(&self, i: usize, lines: &mut Lines) -> bool {
        let chunk = lines.take_chunk();
        let mut state = self.lock();
        let slot = &mut state.slots[i];
        slot.queued += chunk.held();
        slot.chunks.push_back(chunk);
        self.turn.notify_all();
        while state.slots[i].queued > HOLD && !self.stopped() {
            state = self.turn.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        !self.stopped()
    }
}

//! The floor's task: the least code that still is the classic model.
//!
//! - a synchronous completion allocates one shared object holding the outcome (C#'s
//!   `SetResult`);
//! - a suspension moves the state machine into one heap task and runs it again there;
//! - a completing task resumes the idle parent that awaits it, inline (shallow resume);
//! - a task woken while it runs goes to its root's run queue, which the root's next poll
//!   drains (a yield really reaches the executor);
//! - with `CATCH`, a panic in `move_next` is caught and stored, and raised again at the
//!   awaiter.
//!
//! Left out on purpose, since the benchmark chains never need them: the result cache,
//! several awaiters per task (a task here is awaited once), cancellation by dropping a
//! suspended task (a suspended task leaks its state machine if dropped before completion),
//! the depth limit of inline resumes. Everything is `Send`: the counts are atomic and the
//! state is behind one mutex per suspended task, as the model allows tasks to move between
//! threads.

use std::any::Any;
use std::cell::UnsafeCell;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;

use lowering::task::{Lock, LockGuard};
use std::task::{Context, Poll, Wake, Waker};

type Payload = Box<dyn Any + Send + 'static>;
type Outcome<T> = Result<T, Payload>;

/// The object of a synchronous completion. Shared handles read only a value (`T: Sync`);
/// the panic payload (which is not `Sync`) is reached only through the last handle, which
/// owns the object.
pub struct Done<T>(Outcome<T>);

// SAFETY: see above: through `&Done`, only the value is read.
unsafe impl<T: Send + Sync> Sync for Done<T> {}

/// `move_next` of a floor state machine.
pub type MoveNext<T, S> = fn(&mut S, &mut Ctx<'_>) -> Poll<T>;

/// Where `move_next` runs: on the caller's stack (eager start) or in its heap task.
pub struct Ctx<'run> {
    heap: Option<(&'run dyn Run, &'run Waker)>,
}

impl<'run> Ctx<'run> {
    /// A `std` context whose waker schedules the running task; `None` on the stack.
    pub fn std_context(&self) -> Option<Context<'run>> {
        self.heap.map(|(_, waker)| Context::from_waker(waker))
    }
}

/// A heap task seen without its types: what parents, queues and wakers hold (public only
/// because [`Awaitable`] names it).
pub trait Run: Send + Sync {
    fn run_scheduled(self: Arc<Self>);
    fn resume(self: Arc<Self>);
    /// A new strong reference to this task (which always lives in an `Arc`).
    fn retain(&self) -> Arc<dyn Run>;
    /// Put `tasks` on the run queue of this task's root.
    fn enqueue(&self, tasks: Queue);
}

/// The result of a floor call: completed (one small object) or suspended (the heap task).
pub enum Task<T> {
    Completed(Arc<Done<T>>),
    Suspended(Arc<dyn Awaitable<T>>),
    Taken,
}

/// A suspended task seen from its awaiter (the result type only).
pub trait Awaitable<T>: Send + Sync {
    fn try_take(&self) -> Option<Outcome<T>>;
    fn poll_from_parent(&self, parent: &dyn Run) -> Option<Outcome<T>>;
    fn poll_from_root(&self, waker: &Waker) -> Option<Outcome<T>>;
}

fn deliver<T>(outcome: Outcome<T>) -> T {
    match outcome {
        Ok(value) => value,
        Err(payload) => panic::resume_unwind(payload),
    }
}

impl<T: Clone> Task<T> {
    /// Await from a floor state machine (the awaiter's `poll`).
    #[inline]
    pub fn poll_await(&mut self, ctx: &mut Ctx<'_>) -> Poll<T> {
        let outcome = match self {
            Task::Completed(_) => {
                let Task::Completed(done) = std::mem::replace(self, Task::Taken) else { unreachable!() };
                match Arc::try_unwrap(done) {
                    Ok(Done(outcome)) => outcome,
                    Err(shared) => match &shared.0 {
                        Ok(value) => Ok(value.clone()),
                        Err(_) => panic!("floor: a shared panic"),
                    },
                }
            }
            Task::Suspended(core) => {
                let polled = match ctx.heap {
                    None => core.try_take(),
                    Some((parent, _)) => core.poll_from_parent(parent),
                };
                match polled {
                    Some(outcome) => outcome,
                    None => return Poll::Pending,
                }
            }
            Task::Taken => panic!("floor: task awaited twice"),
        };
        Poll::Ready(deliver(outcome))
    }
}

impl<T: Unpin> Future for Task<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let outcome = match this {
            Task::Completed(_) => {
                let Task::Completed(done) = std::mem::replace(this, Task::Taken) else { unreachable!() };
                Arc::try_unwrap(done).unwrap_or_else(|_| panic!("floor: the root task is not shared")).0
            }
            Task::Suspended(core) => match core.poll_from_root(cx.waker()) {
                Some(outcome) => outcome,
                None => return Poll::Pending,
            },
            Task::Taken => panic!("floor: task awaited twice"),
        };
        Poll::Ready(deliver(outcome))
    }
}

/// The value-task shape: a synchronous completion hands the value back inline.
pub enum ValueTask<T> {
    Ready(Option<T>),
    Task(Task<T>),
}

impl<T: Clone> ValueTask<T> {
    #[inline]
    pub fn poll_await(&mut self, ctx: &mut Ctx<'_>) -> Poll<T> {
        match self {
            ValueTask::Ready(value) => Poll::Ready(value.take().expect("floor: value task awaited twice")),
            ValueTask::Task(task) => task.poll_await(ctx),
        }
    }
}

impl<T: Clone + Unpin> Future for ValueTask<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.get_mut() {
            ValueTask::Ready(value) => Poll::Ready(value.take().expect("floor: value task awaited twice")),
            ValueTask::Task(task) => Pin::new(task).poll(cx),
        }
    }
}

/// Run `move_next` on the caller's stack; `CATCH` says whether a panic is caught and stored.
#[inline]
fn run_on_stack<T, S, const CATCH: bool>(state_machine: &mut S, move_next: MoveNext<T, S>) -> Poll<Outcome<T>> {
    let mut ctx = Ctx { heap: None };
    if CATCH {
        match panic::catch_unwind(AssertUnwindSafe(|| move_next(state_machine, &mut ctx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    } else {
        move_next(state_machine, &mut ctx).map(Ok)
    }
}

/// The builder: start a call eagerly, then hand back its task.
#[inline]
pub fn start<T, S, const CATCH: bool>(state_machine: S, move_next: MoveNext<T, S>) -> Task<T>
where
    T: Send + 'static,
    S: Send + 'static,
{
    let mut state_machine = state_machine;
    match run_on_stack::<T, S, CATCH>(&mut state_machine, move_next) {
        Poll::Ready(outcome) => {
            drop(state_machine);
            Task::Completed(Arc::new(Done(outcome)))
        }
        Poll::Pending => Task::Suspended(Core::<T, S, CATCH>::spawn(state_machine, move_next)),
    }
}

/// The value-task builder: as [`start`], without the object on a synchronous value.
#[inline]
pub fn start_value<T, S, const CATCH: bool>(state_machine: S, move_next: MoveNext<T, S>) -> ValueTask<T>
where
    T: Send + 'static,
    S: Send + 'static,
{
    let mut state_machine = state_machine;
    match run_on_stack::<T, S, CATCH>(&mut state_machine, move_next) {
        Poll::Ready(Ok(value)) => ValueTask::Ready(Some(value)),
        Poll::Ready(Err(payload)) => ValueTask::Task(Task::Completed(Arc::new(Done(Err(payload))))),
        Poll::Pending => ValueTask::Task(Task::Suspended(Core::<T, S, CATCH>::spawn(state_machine, move_next))),
    }
}

/// A run queue that does not allocate for its usual length (one task).
#[derive(Default)]
pub struct Queue {
    first: Option<Arc<dyn Run>>,
    rest: Vec<Arc<dyn Run>>,
}

impl Queue {
    fn one(task: Arc<dyn Run>) -> Self {
        Queue { first: Some(task), rest: Vec::new() }
    }

    fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    fn append(&mut self, other: Queue) {
        let Some(first) = other.first else { return };
        if self.first.is_none() {
            *self = Queue { first: Some(first), rest: other.rest };
        } else {
            self.rest.push(first);
            self.rest.extend(other.rest);
        }
    }
}

impl IntoIterator for Queue {
    type Item = Arc<dyn Run>;
    type IntoIter = std::iter::Chain<std::option::IntoIter<Arc<dyn Run>>, std::vec::IntoIter<Arc<dyn Run>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Idle,
    Scheduled,
    Running,
    RunningNotified,
    Completed,
}

enum Waiter {
    Parent(Arc<dyn Run>),
    Root(Waker),
}

struct State<T> {
    status: Status,
    outcome: Option<Outcome<T>>,
    waiter: Option<Waiter>,
    /// Tasks scheduled under this one while it has no parent (it is, or will be, a root).
    queue: Queue,
}

struct Core<T, S, const CATCH: bool> {
    state: Lock<State<T>>,
    /// Touched only by the thread whose status transition set `Running`.
    machine: UnsafeCell<Option<S>>,
    move_next: MoveNext<T, S>,
}

// SAFETY: the state machine is reached only by the runner (status protocol); the rest is
// behind the mutex.
unsafe impl<T: Send, S: Send, const CATCH: bool> Send for Core<T, S, CATCH> {}
unsafe impl<T: Send, S: Send, const CATCH: bool> Sync for Core<T, S, CATCH> {}

impl<T: Send + 'static, S: Send + 'static, const CATCH: bool> Core<T, S, CATCH> {
    fn spawn(state_machine: S, move_next: MoveNext<T, S>) -> Arc<Self> {
        let core = Arc::new(Core {
            state: Lock::new(State { status: Status::Running, outcome: None, waiter: None, queue: Queue::default() }),
            machine: UnsafeCell::new(Some(state_machine)),
            move_next,
        });
        Arc::clone(&core).run_claimed();
        core
    }

    fn lock(&self) -> LockGuard<'_, State<T>> {
        self.state.lock()
    }

    /// Run `move_next` once; the status is `Running`.
    fn run_claimed(self: Arc<Self>) {
        // A waker borrowing this task's reference: never dropped, so never released.
        // SAFETY: the pointer comes from a live `Arc`, whose count `self` keeps.
        let waker = ManuallyDrop::new(Waker::from(unsafe { Arc::from_raw(Arc::as_ptr(&self)) }));
        let mut ctx = Ctx { heap: Some((&*self, &*waker)) };
        // SAFETY: `Running`: this thread alone touches the machine.
        let machine = unsafe { &mut *self.machine.get() };
        let state_machine = machine.as_mut().expect("floor: a task runs after it completed");
        let polled = if CATCH {
            match panic::catch_unwind(AssertUnwindSafe(|| (self.move_next)(state_machine, &mut ctx))) {
                Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
                Ok(Poll::Pending) => Poll::Pending,
                Err(payload) => Poll::Ready(Err(payload)),
            }
        } else {
            (self.move_next)(state_machine, &mut ctx).map(Ok)
        };
        match polled {
            Poll::Pending => {
                let mut state = self.lock();
                if state.status == Status::RunningNotified {
                    state.status = Status::Scheduled;
                    drop(state);
                    self.enqueue(Queue::one(self.retain()));
                } else {
                    state.status = Status::Idle;
                }
            }
            Poll::Ready(outcome) => {
                *machine = None;
                let waiter = {
                    let mut state = self.lock();
                    state.status = Status::Completed;
                    state.outcome = Some(outcome);
                    state.waiter.take()
                };
                match waiter {
                    Some(Waiter::Parent(parent)) => parent.resume(),
                    Some(Waiter::Root(waker)) => waker.wake(),
                    None => {}
                }
            }
        }
    }

    /// Woken: run inline if idle and resumed by a completing child, else schedule.
    fn wake_up(self: Arc<Self>, inline: bool) {
        let mut state = self.lock();
        match state.status {
            Status::Idle if inline => {
                state.status = Status::Running;
                drop(state);
                self.run_claimed();
            }
            Status::Idle => {
                state.status = Status::Scheduled;
                drop(state);
                let me = self.retain();
                self.enqueue(Queue::one(me));
            }
            Status::Running => state.status = Status::RunningNotified,
            Status::Scheduled | Status::RunningNotified | Status::Completed => {}
        }
    }
}

impl<T: Send + 'static, S: Send + 'static, const CATCH: bool> Run for Core<T, S, CATCH> {
    fn run_scheduled(self: Arc<Self>) {
        {
            let mut state = self.lock();
            if state.status != Status::Scheduled {
                return;
            }
            state.status = Status::Running;
        }
        self.run_claimed();
    }

    fn resume(self: Arc<Self>) {
        self.wake_up(true);
    }

    fn retain(&self) -> Arc<dyn Run> {
        let ptr: *const Self = self;
        // SAFETY: every core lives in an `Arc`; one more strong count for the new handle.
        unsafe {
            Arc::increment_strong_count(ptr);
            Arc::from_raw(ptr)
        }
    }

    fn enqueue(&self, tasks: Queue) {
        let mut state = self.lock();
        match &state.waiter {
            Some(Waiter::Parent(parent)) => {
                let parent = Arc::clone(parent);
                drop(state);
                parent.enqueue(tasks);
            }
            Some(Waiter::Root(waker)) => {
                let waker = waker.clone();
                state.queue.append(tasks);
                drop(state);
                waker.wake();
            }
            None => state.queue.append(tasks),
        }
    }
}

impl<T: Send + 'static, S: Send + 'static, const CATCH: bool> Wake for Core<T, S, CATCH> {
    fn wake(self: Arc<Self>) {
        self.wake_up(false);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        Arc::clone(self).wake_up(false);
    }
}

impl<T: Send + 'static, S: Send + 'static, const CATCH: bool> Awaitable<T> for Core<T, S, CATCH> {
    fn try_take(&self) -> Option<Outcome<T>> {
        let mut state = self.lock();
        if state.status == Status::Completed { state.outcome.take() } else { None }
    }

    fn poll_from_parent(&self, parent: &dyn Run) -> Option<Outcome<T>> {
        let mut state = self.lock();
        if state.status == Status::Completed {
            return state.outcome.take();
        }
        if state.waiter.is_none() {
            state.waiter = Some(Waiter::Parent(parent.retain()));
        }
        let handed_up = std::mem::take(&mut state.queue);
        drop(state);
        if !handed_up.is_empty() {
            parent.enqueue(handed_up);
        }
        None
    }

    fn poll_from_root(&self, waker: &Waker) -> Option<Outcome<T>> {
        let batch = {
            let mut state = self.lock();
            if state.status == Status::Completed {
                return state.outcome.take();
            }
            // Not waiting while the batch runs: a completion during it wakes nobody.
            state.waiter = None;
            std::mem::take(&mut state.queue)
        };
        for task in batch {
            task.run_scheduled();
        }
        let mut state = self.lock();
        if state.status == Status::Completed {
            return state.outcome.take();
        }
        state.waiter = Some(Waiter::Root(waker.clone()));
        let more = !state.queue.is_empty();
        drop(state);
        if more {
            waker.wake_by_ref();
        }
        None
    }
}

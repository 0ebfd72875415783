//! `etrade vault run` as a Windows service. A process the Service Control Manager starts
//! must connect back to it within about 30 seconds, report that it runs, and answer stop
//! requests, or the SCM kills it and reports that the service did not start.

use std::ffi::OsString;
use std::sync::Mutex;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use windows_service::service::{
    ServiceControl, ServiceControlAccept, ServiceExitCode, ServiceState, ServiceStatus, ServiceType,
};
use windows_service::service_control_handler::{self, ServiceControlHandlerResult};
use windows_service::{define_windows_service, service_dispatcher};

use super::VAULT_SERVICE_NAME as SERVICE_NAME;

/// The service's work: run until the token is cancelled (the SCM asked the service to stop,
/// or Windows shuts down), then return. An error is reported to the SCM as a failure, which
/// triggers the restart `vault install` configured.
pub type ServiceBody = Box<dyn FnOnce(CancellationToken) -> Result<(), String> + Send>;

/// How [`run_as_windows_service`] went.
pub enum Dispatch {
    /// The SCM started this process, and the body ran and returned this.
    Served(Result<(), String>),
    /// The process was started some other way (a console): the body is handed back, not
    /// run, so the caller can run it in the foreground.
    NotAService(ServiceBody),
}

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("the Windows Service Control Manager: {0}")]
    Scm(#[source] windows_service::Error),
}

/// The ERROR_FAILED_SERVICE_CONTROLLER_CONNECT the dispatcher gets in a console process.
const NOT_STARTED_BY_SCM: i32 = 1063;

// The SCM calls a plain `extern "system"` function, which cannot capture the body: it
// waits here between `run_as_windows_service` and `service_main`.
static BODY: Mutex<Option<ServiceBody>> = Mutex::new(None);
static RESULT: Mutex<Option<Result<(), String>>> = Mutex::new(None);

/// Runs `body` as the `etrade-mcp-vault` service when the SCM started this process; blocks
/// until the body returns. The body runs on a thread the SCM's dispatcher makes (build any
/// async runtime inside it).
pub fn run_as_windows_service(body: ServiceBody) -> Result<Dispatch, ServiceError> {
    set(&BODY, Some(body));
    match service_dispatcher::start(SERVICE_NAME, ffi_service_main) {
        Ok(()) => Ok(Dispatch::Served(take(&RESULT).unwrap_or_else(|| {
            Err("the service stopped before its body ran".to_owned())
        }))),
        Err(windows_service::Error::Winapi(err))
            if err.raw_os_error() == Some(NOT_STARTED_BY_SCM) =>
        {
            match take(&BODY) {
                Some(body) => Ok(Dispatch::NotAService(body)),
                None => Ok(Dispatch::Served(Err(
                    "the service body was taken without a service".to_owned(),
                ))),
            }
        }
        Err(err) => Err(ServiceError::Scm(err)),
    }
}

define_windows_service!(ffi_service_main, service_main);

fn service_main(_arguments: Vec<OsString>) {
    let result = serve();
    set(&RESULT, Some(result));
}

fn serve() -> Result<(), String> {
    let shutdown = CancellationToken::new();
    let on_control = {
        let shutdown = shutdown.clone();
        move |control| match control {
            ServiceControl::Stop | ServiceControl::Shutdown => {
                shutdown.cancel();
                ServiceControlHandlerResult::NoError
            }
            ServiceControl::Interrogate => ServiceControlHandlerResult::NoError,
            _ => ServiceControlHandlerResult::NotImplemented,
        }
    };
    let status = service_control_handler::register(SERVICE_NAME, on_control)
        .map_err(|err| format!("cannot register with the Service Control Manager: {err}"))?;
    let report = |state: ServiceState, accept: ServiceControlAccept, exit: ServiceExitCode| {
        status.set_service_status(ServiceStatus {
            service_type: ServiceType::OWN_PROCESS,
            current_state: state,
            controls_accepted: accept,
            exit_code: exit,
            checkpoint: 0,
            wait_hint: Duration::from_secs(10),
            process_id: None,
        })
    };
    report(
        ServiceState::Running,
        ServiceControlAccept::STOP | ServiceControlAccept::SHUTDOWN,
        ServiceExitCode::Win32(0),
    )
    .map_err(|err| format!("cannot report the service running: {err}"))?;
    let result = match take(&BODY) {
        Some(body) => body(shutdown),
        None => Err("no service body was given".to_owned()),
    };
    let exit = match result {
        Ok(()) => ServiceExitCode::Win32(0),
        Err(_) => ServiceExitCode::ServiceSpecific(1),
    };
    // The result matters more than whether the SCM heard the last word.
    let _ = report(ServiceState::Stopped, ServiceControlAccept::empty(), exit);
    result
}

fn set<T>(slot: &Mutex<Option<T>>, value: Option<T>) {
    *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = value;
}

fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take()
}

//! `etrade vault install` and `uninstall`: the account, the state folder, the socket's
//! folder and the service definition, per operating system.

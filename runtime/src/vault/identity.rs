//! TEMPORARY stand-in until the install branch's identity module lands.
pub fn effective_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").ok().map(|m| m.uid())
    }
    #[cfg(not(unix))]
    None
}
pub fn owner_uid(path: &std::path::Path) -> std::io::Result<Option<u32>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(Some(std::fs::metadata(path)?.uid()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
    }
}

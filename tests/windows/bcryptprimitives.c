/*
 * A stand-in for Windows' bcryptprimitives.dll, for Wine versions that lack it (Debian 12's
 * Wine 8.0; Wine 9 ships its own). Rust's standard library and the getrandom crate import
 * ProcessPrng from it, the system RNG that Windows 10 and later provide; without the DLL
 * Wine cannot load etrade.exe at all. This forwards to BCryptGenRandom with the system's
 * preferred RNG, which Wine implements. Installed only into test Wine prefixes by
 * tests/windows/new-prefix, never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    /* BCryptGenRandom takes a ULONG length; ask in pieces that fit. */
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

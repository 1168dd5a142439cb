"""Password hashing and key derivation: slow on purpose, in the calling thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; bcrypt and
passlib's ``CryptContext`` are in :mod:`~faultlib.detect.serving.blocking.libraries.cloud`, hashlib's
``pbkdf2_hmac``/``scrypt`` in :mod:`~faultlib.detect.serving.blocking.libraries.stdlib`). Password hashes are
built to cost tens to hundreds of milliseconds of CPU (and, for Argon2 and scrypt, a large block of memory) per
call, hashing and verifying alike (pwdlib's ``PasswordHash`` found by the census of unseen services,
``benchmarks/blocking_census.py``); none of these libraries has an async variant. Each entry names its
documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C = "blocking_cpu"

PYNACL = ("https://pynacl.readthedocs.io/en/latest/password_hashing/ (nacl.pwhash str/verify and the argon2i, "
          "argon2id and scryptsalsa208sha256 modules' str/verify/kdf are memory-hard hashes)")
ARGON2 = ("https://argon2-cffi.readthedocs.io/en/stable/api.html (PasswordHasher.hash/verify and the low-level "
          "hash_secret/verify_secret run Argon2)")
WERKZEUG = ("https://werkzeug.palletsprojects.com/en/stable/utils/#werkzeug.security.generate_password_hash "
            "(scrypt or pbkdf2 with many iterations)")
DJANGO = ("https://docs.djangoproject.com/en/stable/topics/auth/passwords/#manually-managing-a-user-s-password "
          "(make_password/check_password run the configured hasher: PBKDF2 by default)")
BCRYPT_KDF = "https://github.com/pyca/bcrypt#kdf (bcrypt_pbkdf with the given rounds)"
PWDLIB = ("https://frankie567.github.io/pwdlib/guide/ (PasswordHash.hash/verify/verify_and_update run the "
          "configured hasher: Argon2 for PasswordHash.recommended(), or bcrypt)")
PASSLIB_HASH = ("https://passlib.readthedocs.io/en/stable/lib/passlib.ifc.html#passlib.ifc.PasswordHash.hash (each "
                "scheme of passlib.hash runs its hash with its configured rounds)")
_PASSLIB_SCHEMES = ("bcrypt", "bcrypt_sha256", "argon2", "scrypt", "pbkdf2_sha256", "pbkdf2_sha512", "sha256_crypt",
                    "sha512_crypt", "django_pbkdf2_sha256")
CRYPTOGRAPHY_KDF = ("https://cryptography.io/en/latest/hazmat/primitives/key-derivation-functions/ (PBKDF2HMAC, "
                    "Scrypt and Argon2id derive/verify run the derivation)")

_NACL_MODULES = ("nacl.pwhash", *(f"nacl.pwhash.{m}" for m in (
    "argon2i", "argon2id", "scrypt", "scryptsalsa208sha256")))

PASSWORDS = Vocabulary(
    calls={
        **{f"{m}.{f}": (C, PYNACL) for m in _NACL_MODULES for f in ("str", "verify", "kdf")},
        **{f"argon2.low_level.{f}": (C, ARGON2) for f in ("hash_secret", "hash_secret_raw", "verify_secret")},
        **{f"werkzeug.security.{f}": (C, WERKZEUG) for f in ("generate_password_hash", "check_password_hash")},
        **{f"django.contrib.auth.hashers.{f}": (C, DJANGO) for f in ("make_password", "check_password")},
        "bcrypt.kdf": (C, BCRYPT_KDF),
        **{f"passlib.hash.{s}.{f}": (C, PASSLIB_HASH) for s in _PASSLIB_SCHEMES for f in ("hash", "verify")},
    },
    families=(
        Family(("argon2.PasswordHasher",), {"hash": C, "verify": C}, ARGON2),
        Family(("pwdlib.PasswordHash", "pwdlib.hashers.argon2.Argon2Hasher", "pwdlib.hashers.bcrypt.BcryptHasher",
                "pwdlib._hash.PasswordHash"),
               {"hash": C, "verify": C, "verify_and_update": C}, PWDLIB),
        Family(tuple(f"cryptography.hazmat.primitives.kdf.{m}" for m in (
            "pbkdf2.PBKDF2HMAC", "scrypt.Scrypt", "argon2.Argon2id")), {"derive": C, "verify": C}, CRYPTOGRAPHY_KDF),
    ),
    returns={"argon2.PasswordHasher": "argon2.PasswordHasher", "pwdlib.PasswordHash": "pwdlib.PasswordHash",
             "pwdlib.PasswordHash.recommended": "pwdlib.PasswordHash",
             **{f"cryptography.hazmat.primitives.kdf.{m}": f"cryptography.hazmat.primitives.kdf.{m}" for m in (
                 "pbkdf2.PBKDF2HMAC", "scrypt.Scrypt", "argon2.Argon2id")}},
)

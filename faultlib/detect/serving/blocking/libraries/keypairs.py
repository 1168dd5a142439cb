"""RSA (and DSA) key-pair generation: a search for large primes, tens of milliseconds to seconds of CPU per key in the
calling thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; password
hashes and key derivation are :mod:`~faultlib.detect.serving.blocking.libraries.passwords`). Making an RSA key means
finding two random primes of half the modulus' length; the expected number of candidates grows with the size, so a
2048-bit key takes tens to hundreds of milliseconds and a 4096-bit key about a second on a server core, with a long
tail (OpenSSL's ``RSA_generate_key_ex``, which ``cryptography``, jwcrypto and pyOpenSSL call; pycryptodome and
python-rsa do the same search in Python, slower still). None of these libraries offers an async variant. Elliptic-curve
and Ed25519 keys are a random scalar and one point multiplication (well under a millisecond) and stay silent: jwcrypto's
``JWK.generate`` blocks only for ``kty="RSA"`` (or a ``kty`` the code does not spell out). Held-out wave 82: an identity
server that generates a 4096-bit signing/encryption JWK inside its async routes.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

C = "blocking_cpu"
JWCRYPTO = ("https://jwcrypto.readthedocs.io/en/latest/jwk.html#jwcrypto.jwk.JWK.generate (kty='RSA' generates an RSA "
            "key of `size` bits, 2048 by default, through cryptography's rsa.generate_private_key)")
CRYPTOGRAPHY = ("https://cryptography.io/en/latest/hazmat/primitives/asymmetric/rsa/#cryptography.hazmat.primitives."
                "asymmetric.rsa.generate_private_key (\"Generates a new RSA private key\": OpenSSL's prime search) and "
                "https://cryptography.io/en/latest/hazmat/primitives/asymmetric/dsa/ (DSA parameters and key)")
PYCRYPTODOME = "https://pycryptodome.readthedocs.io/en/latest/src/public_key/rsa.html#Crypto.PublicKey.RSA.generate"
PYTHON_RSA = "https://stuvel.eu/python-rsa-doc/usage.html#generating-keys (newkeys: \"can take a long time\")"
PYOPENSSL = "https://www.pyopenssl.org/en/latest/api/crypto.html#OpenSSL.crypto.PKey.generate_key"
PARAMIKO = "https://docs.paramiko.org/en/stable/api/keys.html#paramiko.rsakey.RSAKey.generate"

_JWK = ("jwcrypto.jwk.JWK.generate",)
_ASYMMETRIC = "cryptography.hazmat.primitives.asymmetric"

KEY_PAIRS = Vocabulary(
    calls={
        **{name: (C, JWCRYPTO) for name in _JWK},
        f"{_ASYMMETRIC}.rsa.generate_private_key": (C, CRYPTOGRAPHY),
        **{f"{_ASYMMETRIC}.dsa.{f}": (C, CRYPTOGRAPHY) for f in ("generate_private_key", "generate_parameters")},
        **{f"Crypto.PublicKey.{m}.generate": (C, PYCRYPTODOME) for m in ("RSA", "DSA")},
        **{f"Cryptodome.PublicKey.{m}.generate": (C, PYCRYPTODOME) for m in ("RSA", "DSA")},
        "rsa.newkeys": (C, PYTHON_RSA),
        "OpenSSL.crypto.PKey.generate_key": (C, PYOPENSSL),
        "paramiko.RSAKey.generate": (C, PARAMIKO),
        "paramiko.rsakey.RSAKey.generate": (C, PARAMIKO),
    },
    when={name: BlocksWhen("kty", test="one_of", values=("RSA",)) for name in _JWK},
)
"""Key-pair generation that searches for primes (see the module docstring)."""

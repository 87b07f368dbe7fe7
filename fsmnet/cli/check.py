"""``fsmnet check CERT.json``: re-verify a certificate with the independent checker."""

from __future__ import annotations

import argparse
import json

EPILOG = """\
The checker (fsmnet/proofs/checker/) imports nothing from the prover and
re-derives every transition and readout of the certificate in exact
rationals. With --network, the file must be the certified one: the same
SHA-256, architecture, labels and symbols (names and order), and the model
that fsmnet derives from its tensors must equal the certificate's model
exactly. exit codes: 0 valid, 1 invalid (a false claim, or a malformed
certificate: unknown, misplaced or repeated keys, giant numbers), 2 unreadable
input, not JSON, or JSON that is not a certificate at all (no "format":
"fsmnet-certificate", e.g. a spec file).

examples:
  fsmnet compile parity --arch bilinear-full -o net.safetensors
  fsmnet verify parity net.safetensors --certificate cert.json
  fsmnet check cert.json                            # the claim, in exact rationals
  fsmnet check cert.json --network net.safetensors  # and that it is about this file
  fsmnet check cert.json --json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="re-verify a proof certificate independently",
                       description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cert", metavar="CERT.json", help="the certificate ('-': standard input)")
    p.add_argument("--network", metavar="NET",
                   help="also check that the certificate is about this file: its SHA-256, "
                        "architecture, labels and symbols, and its tensors against the "
                        "certificate's model")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from fsmnet.proofs.checker import CertificateError, check_certificate

    try:
        cert = _read_certificate(args.cert)
        if args.network is None:
            summary = check_certificate(cert)
        else:
            # The checker proves the claim about the certificate's model; this also
            # ties the model, labels and symbols to the file, not only to the digest
            # the certificate states.
            from fsmnet.proofs.certificate import check_against_network

            summary = check_against_network(cert, args.network)
    except CertificateError as exc:
        if args.json:
            print(json.dumps({"valid": False, "reason": str(exc)}))
        else:
            print(f"invalid: {exc}")
        return 1
    print(json.dumps({"valid": True, "summary": summary}) if args.json else summary)
    return 0


def _read_certificate(path: str) -> object:
    """The parsed certificate: a typed one-line FsmnetError (exit 2) for anything that
    is not JSON text; CertificateError (exit 1) for JSON that no certificate can be
    (a repeated key, NaN, a giant integer: :func:`fsmnet.proofs.checker.parse_certificate`).
    JSON without ``"format": "fsmnet-certificate"`` at the top is no certificate at all:
    FsmnetError (exit 2)."""
    import sys
    from pathlib import Path

    from fsmnet.errors import FsmnetError
    from fsmnet.proofs.certificate import CERTIFICATE_FORMAT
    from fsmnet.proofs.checker import parse_certificate

    name = "<stdin>" if path == "-" else path
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise FsmnetError(f"{name}: cannot read the certificate ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FsmnetError(f"{name}: not a certificate: not UTF-8 text (bad byte at offset "
                          f"{exc.start}; is it a network file?)") from None
    try:
        cert = parse_certificate(text)
    except json.JSONDecodeError as exc:
        raise FsmnetError(f"{name}: not a certificate: not JSON ({exc})") from None
    except RecursionError:
        raise FsmnetError(f"{name}: not a certificate: JSON nested too deeply") from None
    # JSON that does not even say it is a certificate (a spec file, a network's
    # header, a result printed by --json) is the wrong input, not a false claim.
    if not isinstance(cert, dict) or cert.get("format") != CERTIFICATE_FORMAT:
        wanted = f'"format": "{CERTIFICATE_FORMAT}"'
        if not isinstance(cert, dict):
            raise FsmnetError(f"{name}: not a certificate: a JSON {_kind(cert)}, not an "
                              f"object with {wanted}")
        hint = "; is it a spec file?" if _looks_like_spec(cert) else ""
        raise FsmnetError(f"{name}: not a certificate: a JSON object without {wanted}{hint}")
    return cert



def _kind(value: object) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _looks_like_spec(obj: dict) -> bool:
    return bool({"transitions", "input_symbols", "regex", "delta"} & set(obj))

"""Every fault code, in one registry: what triggers it and whom it names.

docs/protocol/verdicts.md is this registry in words (a test checks that the
chapter defines exactly these codes, that every code literal raised anywhere
in ``wire``, ``crypto``, ``table``, ``store`` and ``audit`` is here, and that
every code here is produced by some test or reference log). The code
literals stay where they are raised; this module only names and explains
them, so that an implementer, a user reading ``uno-lan audit`` and the tests
share one vocabulary.

``named`` is whom the finding names: ``sequencer`` (the host, whose
countersignature vouches for the broken fact), ``author`` (the signer of the
entry's message), ``prover`` (the seat whose share fails), ``shuffler``,
``accuser`` (an ``abort``'s author), ``claimant`` (the seat whose hidden
claim is false), ``accused`` (the culprit an ``abort`` names), ``silent``
(the seat that never revealed) or ``nobody``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    """One fault code: its audit stage, whom it names, and when it is raised."""

    name: str
    #: ``chain``, ``rules``, ``proofs``, ``reveal``, ``table`` (report.STAGES), or
    #: ``peer`` / ``class`` for codes the audit never prints (see ``audit``).
    stage: str
    named: str
    meaning: str
    #: Whether ``uno-lan audit`` can print it as a finding's code.
    audit: bool = True


def _codes(*codes: Code) -> dict[str, Code]:
    return {code.name: code for code in codes}


#: Every code, by name. Order: as docs/protocol/verdicts.md lists them.
CODES: dict[str, Code] = _codes(
    # -- the chain (wire.md §4.1-§4.2) ----------------------------------------------------
    Code("sequencer_fork", "chain", "sequencer",
         "two countersigned entries with one number and different entry hashes"),
    Code("wrong_table", "chain", "sequencer", "an entry's table id is not the log's"),
    Code("bad_sequence", "chain", "sequencer", "an entry's number is not the count accepted"),
    Code("bad_prev_hash", "chain", "sequencer",
         "an entry's previous hash is not the last entry's hash"),
    Code("bad_first_entry", "chain", "sequencer",
         "entry 0 is not authored by the sequencer a live peer knows", audit=False),
    Code("bad_signature", "chain", "author", "the author's signature does not verify"),
    Code("bad_countersignature", "chain", "sequencer",
         "the sequencer's countersignature does not verify"),
    Code("replayed_message", "chain", "sequencer",
         "an author's earlier message logged again (same digest)"),
    Code("equivocation", "chain", "author",
         "two validly signed messages by one author with one counter, different digests"),
    Code("counter_gap", "chain", "sequencer", "an author's counter skips a number"),
    Code("head_ahead", "chain", "sequencer",
         "a logged message claims to have seen more entries than precede it"),
    Code("head_mismatch", "chain", "sequencer",
         "a logged message's seen-hash is not this log's entry hash there"),
    Code("head_regressed", "chain", "sequencer",
         "a logged message's seen is below its author's previous seen"),
    Code("malformed_entry", "chain", "sequencer",
         "a countersigned record, framed as an entry, whose body or author key is refused"),
    # -- the table's rules (table.md §3, §5, §7) --------------------------------------------
    Code("after_end", "rules", "author", "an entry after the table ended"),
    Code("no_table", "rules", "author",
         "entry 0 is not an open_table, or a leave before any table"),
    Code("wrong_version", "rules", "author",
         "a message of another protocol version than entry 0's (wire.md §3)"),
    Code("unexpected", "rules", "author",
         "a body with no place here: a kind the table does not use (32, 33), shares, "
         "a shuffle or a move outside play, an abort outside keys/playing"),
    Code("not_lobby", "rules", "author", "a lobby body after the start"),
    Code("not_host", "rules", "author", "set_options, start or kick by another than the host"),
    Code("bad_options", "rules", "author",
         "options that are not valid under docs/rules.md (verdicts.md §4)"),
    Code("reopened", "rules", "author", "an open_table after entry 0"),
    Code("joined_twice", "rules", "author", "a join by a peer that has a place"),
    Code("table_full", "rules", "author", "a join at a table with max players joined"),
    Code("name_taken", "rules", "author", "a join with a name already at the table"),
    Code("not_joined", "rules", "author", "ready or leave by a peer without a place"),
    Code("bad_kick", "rules", "author", "a kick of the host or of a peer without a place"),
    Code("not_seated", "rules", "author",
         "a leave or abort during a game by a non-seat, or a leave while revealing"),
    Code("bad_seats", "rules", "author",
         "start seats that are not the joined peers in joining order, or a count the "
         "options refuse"),
    Code("not_ready", "rules", "author", "start while a joined peer is not ready"),
    Code("unexpected_key", "rules", "author",
         "a key_setup outside keys, by a non-seat, or a second one"),
    Code("not_sequencer", "rules", "author", "a clock or a TimeOut move not by the sequencer"),
    Code("clock_backwards", "rules", "author", "a clock earlier than the table clock"),
    Code("no_start_clock", "rules", "author",
         "a TimeOut logged before the sequencer's start clock (table.md §6.1)"),
    Code("bad_close", "rules", "author",
         "a closing abort not by the sequencer, with evidence, or naming a seat whose "
         "reveal is not due (table.md §8)"),
    Code("unexpected_reveal", "rules", "author",
         "a reveal_secrets by a non-seat, a second one, in the lobby, or with no key"),
    Code("bad_evidence", "rules", "accuser",
         "an abort whose evidence is not the culprit's signed message for this table"),
    Code("false_accusation", "rules", "accuser",
         "an abort whose evidence message is valid (not refused); at the reveal: an "
         "accusation of a bad private reveal that opens and proves right"),
    Code("unexpected_share", "rules", "author", "a share that is not owed now"),
    Code("out_of_turn", "rules", "author", "a shuffle by a seat whose turn it is not"),
    Code("unexpected_private", "rules", "author", "a sealed body nobody owes its recipient"),
    Code("not_a_move", "rules", "author", "a move carrying Reveal, Reseat or ErrorPenalty"),
    Code("wrong_seat", "rules", "author", "a move in another seat's name"),
    Code("bad_handover", "rules", "author",
         "a handover not by the next seat after the sequencer, not from the sequencer, "
         "not for the next term, or not following its author's head (table.md §13.2)"),
    Code("bad_vote", "rules", "author",
         "a handover whose votes are not a majority of the members' signed votes for its "
         "term, sequencers and head, the new sequencer's among them (table.md §13.2)"),
    Code("bad_remove", "rules", "author",
         "a remove not by the sequencer, outside key setup and play, of a seat the table "
         "does not wait for, of the sequencer itself, or that would leave too few seats "
         "or break a team (table.md §14.1)"),
    Code("illegal_move", "rules", "author",
         "the rules engine refuses the action (the finding's rule names the RULES.md "
         "rule); at the reveal: a hidden claim proven false (names the claimant)"),
    # -- proofs (deck.md §3-§7) --------------------------------------------------------------
    Code("bad_key", "proofs", "author", "a key_setup whose point or Schnorr proof fails"),
    Code("bad_shuffle", "proofs", "author",
         "a shuffle of the wrong size, with an invalid point, or whose proof of shuffle "
         "is missing or fails (deck.md §6.4)"),
    Code("bad_share", "proofs", "prover",
         "a share whose DLEQ proof or point fails, or that names no seat or shuffled card"),
    Code("unproven_face", "proofs", "author", "a card shown without every share"),
    Code("wrong_face", "proofs", "author", "a card shown that opens to another card"),
    Code("invalid_scalar", "proofs", "author", "a revealed key share that is not canonical"),
    Code("key_mismatch", "proofs", "author", "a revealed key share x with x·G ≠ h"),
    Code("commitment_mismatch", "proofs", "author",
         "a revealed shuffle master seed that does not open the commitment"),
    Code("channel_mismatch", "proofs", "author",
         "a revealed channel seed whose key is not the lobby's channel key"),
    Code("unknown_card", "proofs", "nobody",
         "an opened position is no card: a dishonest shuffle, named at the reveal"),
    Code("duplicate_card", "proofs", "nobody",
         "two positions of one deck open to one card: a dishonest shuffle"),
    Code("bad_deck", "proofs", "nobody",
         "the engine refuses cards every share proved, or a deck carries a card of a "
         "deck never shuffled: a dishonest shuffle"),
    # -- the end-of-game reveal (deck.md §9) ---------------------------------------------------
    Code("dishonest_shuffle", "reveal", "shuffler",
         "a shuffle that its revealed seed does not re-execute byte for byte"),
    Code("bad_private_reveal", "reveal", "author",
         "a sealed private reveal that does not open, or is not the owed proven shares"),
    Code("contradiction", "reveal", "nobody",
         "a face opened in play differs from the re-executed deck"),

    # -- what the table recorded (table.md §6, §7.3), and round-end claims -------------------
    Code("missing_reveal", "table", "silent",
         "the sequencer's closing abort of a seat that never published reveal_secrets "
         "(verdict aborted; the finding is at the closing entry, §1)"),
    Code("unresponsive", "table", "accused",
         "the sequencer's abort of a seat that owed work for 60 s (verdict aborted)"),
    Code("bad_private_share", "table", "accused",
         "a recipient's abort, without evidence, of a private share that failed"),
    Code("wild_draw_four", "rules", "claimant",
         "a round end's revealed hands prove a Wild Draw Four played while holding the "
         "colour (ClaimViolated)"),
    Code("challenge", "rules", "claimant",
         "a round end's revealed hands prove a challenge's verdict false: guilty though "
         "the hand held no card of the colour, or not guilty though it did (ClaimViolated)"),
    Code("draw_until_playable", "rules", "claimant",
         "a round end's revealed hands prove a false claim about a drawn card under "
         "draw_until_playable (ClaimViolated)"),
    Code("forced_play", "rules", "claimant",
         "a round end's revealed hands prove a playable drawn card kept under forced_play "
         "(ClaimViolated)"),
    # -- codes of live peers and helpers, never an audit verdict -----------------------------
    Code("empty_log", "peer", "nobody", "a log with no entries (audit: unfinished)",
         audit=False),
    Code("unreadable_log", "peer", "nobody", "a file that is not a readable log (audit: "
         "status unreadable, exit 2)", audit=False),
    Code("sealed_tampered", "peer", "author",
         "a sealed body that does not open for its recipient", audit=False),
    Code("sealed_malformed", "peer", "author",
         "a sealed body that opens to bytes that are no body", audit=False),
    Code("bad_seed", "peer", "nobody", "a local seed of the wrong size", audit=False),
    Code("bad_channel_key", "peer", "nobody", "a channel key that is no X25519 key",
         audit=False),
    Code("wrong_channel_key", "peer", "nobody",
         "a channel used with a key it was not made for", audit=False),
    Code("invalid_point", "peer", "nobody", "bytes that are no valid group point",
         audit=False),
    Code("share_rejected", "peer", "prover", "a share for another position", audit=False),
    Code("shuffle_rejected", "peer", "shuffler", "a shuffle of the wrong shape", audit=False),
    Code("claim_mismatch", "peer", "author", "an opened card is not the claimed one",
         audit=False),
    Code("double_vote", "peer", "author",
         "a member's two signed hand-over votes in one term for two sequencers "
         "(table.md §13.5)", audit=False),
    Code("bad_pake", "peer", "author",
         "a SPAKE2 join-code message that is no point of the group, or degenerate "
         "(net.md); the link ends, nothing reaches the log", audit=False),
    # -- base classes' defaults: every raise names a specific code ---------------------------
    *(Code(name, "class", "nobody", "the default of an error class", audit=False)
      for name in ("invalid_message", "illegal_action", "protocol_error",
                   "local_protocol_error", "remote_protocol_error", "crypto_error",
                   "proof_rejected", "config_error", "chain_error")),
)

#: The audit's statuses (report.Status values) and ``unreadable`` (cli.audit).
STATUSES = ("ok", "stopped", "violation", "aborted", "unfinished", "unreadable")


def code(name: str) -> Code:
    """The registered code ``name``.

    Raises:
        KeyError: not a registered code.
    """
    return CODES[name]

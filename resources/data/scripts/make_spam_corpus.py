"""Write resources/data/spam-messages.tsv: a small corpus of short messages, spam and ham, made up.

No corpus of real messages is shipped: real ones carry their authors' words and numbers. These are
generated from templates and word lists written for SML Lab, seeded, so the file is the same on
every machine (run from the repository root, no argument):

    python resources/data/scripts/make_spam_corpus.py

Each line is ``label<TAB>text`` with label ``spam`` or ``ham``. Both classes share many words
("free", "call", "today", "now", "win" appear in ham too, "meeting" and "tomorrow" in spam), a few
messages of each class read like the other's, and the slots are filled at random, so a word
count model learns tendencies, not a lookup table.
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "spam-messages.tsv"
SEED = 20240444
N_SPAM, N_HAM = 300, 450

SPAM = [
    "{win} a {prize} now! {call} {number} to claim before {deadline}",
    "congratulations you have been selected for a {prize}. reply {keyword} to claim",
    "{urgent} your account has been {locked}. verify your details at {link} {deadline}",
    "free {offer} for you today only. text {keyword} to {short} now",
    "you are a {winner}! claim your {money} cash {prize} at {link}",
    "{cheap} {product} {discount} off this week only, order now at {link}",
    "{urgent}: your parcel could not be delivered. pay the {money} fee at {link}",
    "earn {money} a week from home, no experience needed. {call} {number}",
    "last chance! your {offer} expires {deadline}. reply {keyword} now",
    "get a {cheap} loan today, guaranteed approval. {call} {number} free",
    "hot singles in your area want to meet you tonight. click {link}",
    "you have won a {prize} in our weekly draw. to claim text {keyword} to {short}",
    "exclusive {offer}: {discount} off all {product}. limited stock, buy now",
    "your mobile number won {money}! {call} {number} from a landline to claim",
    "{urgent} security alert: unusual sign in. confirm your password at {link}",
    "double your bitcoin in 24 hours, join the free investment club {link}",
    "meeting tomorrow? no. a {cheap} {product} deal that cannot wait. {call} {number}",
]
HAM = [
    "are we still on for {meal} {when}?",
    "can you send me the notes from {class} {when}",
    "i will be {late} minutes late, {sorry}",
    "{greeting} how was the {event}? call me when you are free",
    "do you want to {activity} {when}? i am free after {time}",
    "the {class} meeting moved to {time} {when}, room {room}",
    "{thanks} for the {thing}, it was really {nice}",
    "can you pick up {food} on your way home",
    "happy birthday! hope you have a {nice} day",
    "i left my {thing} at your place, can i get it {when}",
    "mum says dinner is at {time}, dont be late",
    "the bus is running late, be there in {late} minutes",
    "did you win the {event} {when}? {greeting}",
    "good luck with the {class} exam {when}, you will do great",
    "free tonight? we could {activity} or just watch a film",
    "call me back when you can, nothing urgent",
    "lecture notes for {class} are online now, check the course page",
    "our team won the {event} today! {greeting}",
    "can you text me the address for {when}",
    "meeting notes attached, let me know if i missed anything",
    "the offer on the flat was accepted! {greeting}",
]
SLOTS = {
    "win": ["win", "WIN", "you could win", "claim"],
    "prize": ["prize", "cash prize", "gift card", "holiday", "new phone", "reward"],
    "call": ["call", "ring", "phone"],
    "number": ["0800 123 456", "0871 222 333", "09061 700 800", "0800 555 010"],
    "deadline": ["today", "tonight", "midnight", "this weekend", "tomorrow"],
    "keyword": ["YES", "WIN", "CLAIM", "GO", "STOP"],
    "urgent": ["urgent", "URGENT", "important", "final notice"],
    "locked": ["locked", "suspended", "limited", "closed"],
    "link": ["www.claim-now.example", "bit.ly/xw12", "secure-login.example", "www.prizes.example"],
    "offer": ["offer", "trial", "membership", "ringtone", "voucher"],
    "short": ["80082", "85233", "69669", "87121"],
    "winner": ["winner", "lucky winner", "selected customer"],
    "money": ["£500", "£1000", "£2000", "£150", "$900"],
    "cheap": ["cheap", "best", "lowest price", "discount"],
    "product": ["watches", "phones", "pills", "insurance", "sunglasses"],
    "discount": ["50%", "70%", "80%", "half price"],
    "meal": ["lunch", "dinner", "coffee", "breakfast"],
    "when": ["today", "tomorrow", "tonight", "on friday", "this weekend", "next week", "later"],
    "class": ["statistics", "maths", "physics", "history", "the seminar", "the lab"],
    "late": ["5", "10", "15", "20"],
    "sorry": ["sorry", "sorry about that", "traffic is awful", "missed the bus"],
    "greeting": ["hey!", "hi,", "hello,", "ok", "great"],
    "event": ["match", "party", "interview", "concert", "game", "quiz"],
    "activity": ["go for a walk", "get food", "study together", "play tennis", "see a film"],
    "time": ["6", "7", "half past 5", "noon", "8 pm"],
    "room": ["2.14", "101", "B3", "the big hall"],
    "thanks": ["thanks", "thank you", "cheers"],
    "thing": ["book", "charger", "umbrella", "help", "present", "scarf"],
    "nice": ["nice", "lovely", "great", "kind of you"],
    "food": ["milk", "bread", "some eggs", "pasta"],
}


def fill(template: str, rng: random.Random) -> str:
    out = template
    while "{" in out:
        start = out.index("{")
        end = out.index("}", start)
        out = out[:start] + rng.choice(SLOTS[out[start + 1:end]]) + out[end + 1:]
    return out


def main() -> None:
    rng = random.Random(SEED)
    rows = [("spam", fill(rng.choice(SPAM), rng)) for _ in range(N_SPAM)]
    rows += [("ham", fill(rng.choice(HAM), rng)) for _ in range(N_HAM)]
    rng.shuffle(rows)
    OUT.write_text("".join(f"{label}\t{text}\n" for label, text in rows), encoding="utf-8")
    print(f"wrote {OUT} ({len(rows)} messages: {N_SPAM} spam, {N_HAM} ham)")


if __name__ == "__main__":
    main()

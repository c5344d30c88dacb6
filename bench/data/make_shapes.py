"""Writes ``shapes.json``: a retrieval set shaped unlike LoCoMo, from text written for it.

Why: LoCoMo's questions reuse the words of their evidence, so keyword search wins
there. Here the shape is reversed: several users talk with an assistant over several
sessions, the assistant answers at length (many words, little signal), and each
question paraphrases its evidence turn with almost no word in common. A handful of
cue/trigger pairs ask that a later message bring back an earlier one it shares no
words with. Deterministic (a fixed seed); run it to regenerate the file:

    python bench/data/make_shapes.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "shapes.json"

USERS = ["Maya", "Tomas", "Priya", "Lukas", "Aiko", "Daniel", "Sofia", "Kwame"]

# (group, evidence by the user with {slot}, slot values, question, assistant's reply)
# Or, when the group is "assistant", the evidence is the assistant's reply: the user
# turn asks, the assistant's turn (with the slot) answers, the question asks about it.
FACTS: list[tuple[str, str, list[str], str, str]] = [
    (
        "paraphrase",
        "I finally adopted a {x} from the rescue shelter on Saturday, it already sleeps on my bed.",
        ["greyhound", "tabby kitten", "beagle", "pair of rabbits", "border collie", "parrot"],
        "Did I bring home any new animal companion lately?",
        "Congratulations, the first weeks with a rescue matter a lot. Keep the routine "
        "predictable, feed at the same hours, give a quiet corner that belongs only to "
        "the newcomer, and expect some shyness before real trust builds up.",
    ),
    (
        "paraphrase",
        "My sister's wedding is in {x}, and I still have not bought a dress or booked flights.",
        ["Lisbon", "Kyoto", "Cape Town", "Montreal", "Edinburgh", "Oaxaca"],
        "Which city is the family marriage ceremony taking place in?",
        "There is still time. Book the travel first because prices climb the closer "
        "you get, then pick an outfit that works for the climate, and keep a small "
        "list of gifts and errands so nothing lands on the last day.",
    ),
    (
        "paraphrase",
        "Since March I have been training for a {x}, running four mornings a week before work.",
        ["half marathon", "10k race", "trail ultra", "marathon", "triathlon", "charity 5k"],
        "What endurance event am I preparing for?",
        "Four sessions a week is a solid base. Keep most runs easy, add one longer "
        "outing that grows slowly, sleep well, and take a lighter week every month so "
        "the body can absorb the work instead of breaking down.",
    ),
    (
        "paraphrase",
        "The doctor told me I am allergic to {x}, so I had to clear out half the kitchen.",
        ["peanuts", "shellfish", "gluten", "sesame", "eggs", "soy"],
        "Is there any food I must avoid for health reasons?",
        "That is a big change, but it becomes routine quickly. Read labels every "
        "time, tell restaurants clearly, keep safe snacks in your bag, and ask your "
        "physician whether you should carry emergency medication.",
    ),
    (
        "paraphrase",
        "I quit my job at the bank and started as a {x} at a small studio last Monday.",
        ["game designer", "illustrator", "sound engineer", "carpenter", "UX researcher", "baker"],
        "What new profession did I switch to?",
        "A brave move. The first month in a new field is mostly listening: learn how "
        "the team works, ask many questions, keep notes on what surprises you, and "
        "give yourself permission to be a beginner for a while.",
    ),
    (
        "paraphrase",
        "We moved into a flat near the {x}, the view from the balcony is unbelievable.",
        ["harbour", "old cathedral", "botanical garden", "river bend", "ski slopes", "vineyards"],
        "Where is my new home located?",
        "Moving is exhausting, so pace the unpacking. Set up the bed and the kitchen "
        "first, meet one neighbour in the first week, and leave the decorating for "
        "when you know how the light moves through the rooms.",
    ),
    (
        "paraphrase",
        "My grandmother taught me to play the {x} when I was seven and I picked it up again.",
        ["accordion", "cello", "ukulele", "harmonica", "piano", "violin"],
        "Which musical instrument did a relative introduce me to as a child?",
        "Coming back to something from childhood is lovely. Short daily practice beats "
        "long weekly sessions, start with pieces you remember, and record yourself now "
        "and then so you can hear the progress you would otherwise miss.",
    ),
    (
        "paraphrase",
        "I broke my {x} skiing in February and the cast only came off yesterday.",
        ["wrist", "ankle", "collarbone", "left leg", "thumb", "elbow"],
        "Did I suffer an injury on the slopes this winter?",
        "Glad the cast is off. Expect stiffness for a while, follow the physiotherapy "
        "exercises even when they feel pointless, and build strength back gradually "
        "rather than testing it all at once.",
    ),
    (
        "paraphrase",
        "For our anniversary my partner surprised me with a trip to {x}.",
        ["Iceland", "Morocco", "Patagonia", "Vietnam", "Sicily", "Norway"],
        "Where did my significant other take me to celebrate our years together?",
        "What a thoughtful gift. Keep a small journal during the journey, leave some "
        "days unplanned, and take photos of ordinary moments too, they are often the "
        "ones you treasure later.",
    ),
    (
        "paraphrase",
        "I am saving every spare euro for a {x}, I want it before the end of next year.",
        ["camper van", "sailing boat", "electric bike", "piano", "house deposit", "motorbike"],
        "What big purchase am I putting money aside for?",
        "A clear goal makes saving far easier. Move a fixed amount automatically on "
        "payday, track it somewhere visible, and decide in advance what you will do "
        "with windfalls so they do not disappear into daily spending.",
    ),
    (
        "paraphrase",
        "Our son just started {x} lessons and he practices in the garage every evening.",
        ["drum", "karate", "fencing", "chess", "guitar", "swimming"],
        "What activity has my child recently taken up?",
        "It is great that he is motivated. Praise the effort rather than the result, "
        "keep practice fun, and let him show you what he learned each week, children "
        "love teaching their parents.",
    ),
    (
        "paraphrase",
        "I have been reading everything by {x} this summer, I finished four novels in a month.",
        [
            "Ursula Le Guin",
            "Haruki Murakami",
            "Toni Morrison",
            "Italo Calvino",
            "Jane Austen",
            "Kazuo Ishiguro",
        ],
        "Which author's books have I been devouring?",
        "Reading one writer in depth is rewarding: you notice recurring themes and how "
        "the style changes over a career. You might keep short notes on each book so "
        "you can compare them when you are done.",
    ),
    (
        "paraphrase",
        "My landlord raised the rent by {x} percent, so I am looking for a cheaper place.",
        ["fifteen", "twenty", "twelve", "thirty", "eighteen", "twenty five"],
        "Why do I want to change apartments?",
        "That is a steep increase. Check what your lease and local rules allow, "
        "compare listings for a few weeks to learn the market, and factor in moving "
        "costs before deciding whether leaving really saves money.",
    ),
    (
        "paraphrase",
        "Every Sunday I volunteer at the {x}, it is the best part of my week.",
        [
            "food bank",
            "animal shelter",
            "public library",
            "community garden",
            "hospice",
            "youth football club",
        ],
        "How do I spend my weekends helping others?",
        "Giving time regularly is good for you as well as for others. Protect that "
        "slot in your calendar, and if it ever starts to feel like a duty, talk to the "
        "organisers about a role that fits your energy.",
    ),
    (
        "paraphrase",
        "I started learning {x} on my phone because my partner's parents barely speak English.",
        ["Portuguese", "Korean", "Polish", "Greek", "Hindi", "Turkish"],
        "Which language am I studying to talk with my in-laws?",
        "That is a kind reason to learn. Ten minutes a day is enough to begin, focus "
        "on phrases you will actually use at the dinner table, and do not be afraid of "
        "mistakes, families usually love the effort.",
    ),
    (
        "paraphrase",
        "I gave up coffee three weeks ago and the headaches have finally stopped.",
        ["", "", "", "", "", ""],
        "Have I cut any caffeine drinks out of my routine?",
        "Well done on getting through the hardest part. Keep drinking plenty of water, "
        "a warm drink in the morning can replace the ritual, and notice whether your "
        "sleep improves over the next weeks.",
    ),
    (
        "paraphrase",
        "My car was stolen from the station car park, the police found it burnt out in a field.",
        ["", "", "", "", "", ""],
        "What happened to my vehicle?",
        "I am sorry, that is upsetting. Call your insurer today, keep a record of every "
        "call and reference number, and ask whether your policy covers a temporary "
        "replacement while the claim is processed.",
    ),
    (
        "paraphrase",
        "I grow {x} on the allotment and this year the harvest filled twelve jars.",
        ["tomatoes", "chillies", "strawberries", "beans", "courgettes", "raspberries"],
        "What do I cultivate in my garden plot?",
        "A very good season. Keep notes on what you planted where, rotate the beds next "
        "spring so the soil does not tire, and share some jars with the neighbours, it "
        "builds goodwill on any plot.",
    ),
    (
        "paraphrase",
        "My daughter was diagnosed with {x}, so mornings now start with a routine check.",
        ["type 1 diabetes", "asthma", "coeliac disease", "epilepsy", "eczema", "ADHD"],
        "Does my kid have a medical condition?",
        "That is a lot to take in. Lean on the care team, write down questions between "
        "appointments, find one other family going through the same thing, and let "
        "yourself feel tired, it is normal.",
    ),
    (
        "paraphrase",
        "I passed my {x} exam on the second attempt, I could not stop smiling all day.",
        ["driving", "bar", "nursing licence", "accountancy", "pilot", "sommelier"],
        "Did I get a certification recently?",
        "Congratulations, persistence paid off. Celebrate properly, and write down what "
        "you did differently the second time, it is a useful lesson for the next big "
        "challenge you take on.",
    ),
    (
        "assistant",
        "Can you think of a book to help me handle money better?",
        [
            "The Psychology of Money",
            "Your Money or Your Life",
            "I Will Teach You to Be Rich",
            "The Richest Man in Babylon",
            "Die With Zero",
            "The Simple Path to Wealth",
        ],
        "What title did you recommend for my finances?",
        "A good place to start is '{x}'. It explains why habits matter more than clever "
        "tricks, it is short enough to finish in a week, and most readers say it changed "
        "how they think about spending and saving.",
    ),
    (
        "assistant",
        "I want to do something with my hands in the evenings, any ideas?",
        ["pottery", "woodcarving", "knitting", "bookbinding", "leather work", "watercolour"],
        "Which craft hobby did you suggest I try?",
        "You could try {x}. It is calm, the materials are cheap to start, there are "
        "evening classes in most towns, and the finished pieces make lovely presents for "
        "friends and family.",
    ),
    (
        "assistant",
        "My back aches after long days at the desk. What should I change?",
        [
            "a standing desk",
            "a lumbar cushion",
            "a monitor arm",
            "a kneeling chair",
            "a footrest",
            "a timer for breaks",
        ],
        "What did you advise for my posture trouble at work?",
        "Start with {x} and stand up every half hour. Keep the screen at eye level, feet "
        "flat on the floor, and try a few minutes of stretching before lunch; most desk "
        "pain eases within weeks.",
    ),
    (
        "assistant",
        "We have one free weekend and a small budget. Where could we go?",
        [
            "a cabin in the Ardennes",
            "the Black Forest",
            "the Lake District",
            "the Dolomites",
            "Normandy's coast",
            "the Peak District",
        ],
        "Which getaway destination did you propose?",
        "How about {x}? It is reachable by train, cheap outside the holidays, and has "
        "short walks for every energy level, plus small inns where a warm dinner costs "
        "very little.",
    ),
    (
        "assistant",
        "What should I cook when my vegetarian friends come over?",
        [
            "a mushroom risotto",
            "a lentil shepherd's pie",
            "a chickpea curry",
            "stuffed peppers",
            "a spinach lasagne",
            "a roasted vegetable tart",
        ],
        "Which meat-free dish did you tell me to make for guests?",
        "Try {x}. It can be prepared ahead, scales easily for a crowd, and is filling "
        "enough that nobody misses the meat; serve it with a crisp salad and good bread.",
    ),
    (
        "assistant",
        "I can never fall asleep before two in the morning. Help?",
        [
            "no screens after ten",
            "a fixed wake-up time",
            "a cooler bedroom",
            "a short evening walk",
            "writing a worry list",
            "dimming the lights at nine",
        ],
        "What did you propose to fix my insomnia?",
        "The most reliable change is {x}. Keep it up for two weeks before judging, cut "
        "caffeine after noon, and get daylight early; the body clock shifts slowly but "
        "it does shift.",
    ),
    (
        "paraphrase",
        "My brother and I have not spoken since the argument about {x} at Christmas.",
        [
            "the inheritance",
            "the family house",
            "politics",
            "our father's care",
            "his divorce",
            "a borrowed loan",
        ],
        "Am I in conflict with a sibling?",
        "Family rifts hurt because the bond matters. When you feel ready, a short "
        "message that does not relitigate the argument can reopen the door, and it is "
        "fine if the first step is small.",
    ),
    (
        "paraphrase",
        "I got promoted to {x} today, the team threw a small party with cake.",
        [
            "team lead",
            "head of design",
            "senior engineer",
            "store manager",
            "chief editor",
            "project director",
        ],
        "Did my career move up recently?",
        "Well deserved. In the first weeks, meet each person you now lead one to one, "
        "ask what they need from you, and resist changing everything at once; trust "
        "comes before big reforms.",
    ),
]

# A cue the user says early, and a trigger weeks later that should bring it back
# although the two share no content words.
CUES: list[tuple[str, str]] = [
    (
        "After learning to say no to extra requests I feel much less stressed.",
        "I volunteered for that project and now I'm overwhelmed.",
    ),
    (
        "Walking in the forest at dawn is what calms my mind best.",
        "Work has been chaotic lately, my head is buzzing constantly.",
    ),
    (
        "Whenever I skip breakfast I get dizzy by eleven.",
        "Nearly fainted during the morning meeting today.",
    ),
    (
        "Talking to my old teacher Mrs Alder always gives me perspective.",
        "I keep doubting whether this choice makes sense, who could advise me?",
    ),
    (
        "Spicy food gives me terrible heartburn at night.",
        "Thinking of ordering that fiery curry for dinner.",
    ),
    (
        "My knee swells up if I run on concrete pavements.",
        "Planning a jog downtown tomorrow along the city streets.",
    ),
    (
        "Crowded places make me panic since the accident.",
        "Friends invited me to a big festival next weekend.",
    ),
    (
        "Journaling before bed helped me stop ruminating.",
        "Lying awake replaying conversations again.",
    ),
]

# Small talk and long general answers: the bulk of a real assistant conversation.
FILLER: list[tuple[str, str]] = [
    (
        "Can you explain how compound interest works?",
        "Compound interest means you earn returns on earlier returns as well as on what "
        "you put in. Over short periods the difference is small, over decades it is "
        "enormous, which is why starting early matters more than starting big. Fees "
        "compound too, in the opposite direction, so keep them low.",
    ),
    (
        "What is a good way to start a morning routine?",
        "Keep it tiny at first: a glass of water, two minutes of stretching, and one "
        "line in a notebook about what matters today. Once that sticks, add more. Most "
        "routines fail because they start too ambitious, not because people lack will.",
    ),
    (
        "How do I write a polite email to decline a meeting?",
        "Thank them for the invitation, say briefly that you cannot attend, and offer an "
        "alternative such as reading the notes or a short call later. Keep it to three "
        "sentences; a clear and friendly answer is more respectful than a long excuse.",
    ),
    (
        "Any tips for keeping houseplants alive?",
        "Most plants die from too much water rather than too little. Check the soil with "
        "a finger before watering, give them as much light as the species likes, and "
        "repot only when roots circle the pot. Fewer, healthier plants beat a jungle.",
    ),
    (
        "What's the difference between weather and climate?",
        "Weather is what happens on a given day; climate is the pattern over decades. A "
        "cold week says little about climate, while a steady shift in averages over "
        "thirty years says a lot. Scientists look at long records for that reason.",
    ),
    (
        "How can I be more productive in the afternoon?",
        "Energy dips after lunch for most people. Put routine tasks there, take a short "
        "walk outside, drink water, and save demanding thinking for your best hours. A "
        "ten-minute break often returns more than it costs.",
    ),
    (
        "Tell me something interesting about octopuses.",
        "Octopuses have three hearts, blue blood, and most of their neurons sit in their "
        "arms, which can react to touch on their own. They solve puzzles, open jars, and "
        "change skin colour and texture in a fraction of a second.",
    ),
    (
        "How do I make a simple budget?",
        "List what comes in each month, then fixed costs, then a realistic amount for "
        "variable spending, and what is left goes to savings first. Review it after a "
        "month against what really happened and adjust; a budget is a draft, not a law.",
    ),
    (
        "What should I pack for a rainy hiking day?",
        "A waterproof jacket, a warm layer, spare socks in a dry bag, snacks, water, a "
        "map, and a head torch even if you plan to be back early. Wet cotton chills you "
        "fast, so choose wool or synthetics.",
    ),
    (
        "How do I stop procrastinating on big tasks?",
        "Break the task into a first step so small it feels silly, and do just that. "
        "Starting is the hard part; momentum usually follows. Remove distractions for a "
        "fixed block of time and reward yourself when it ends.",
    ),
    (
        "Is it better to stretch before or after exercise?",
        "Before exercise, gentle movement that warms the muscles works better than long "
        "static holds. After exercise, slower stretching can feel good and help you wind "
        "down. Consistency matters more than the exact timing.",
    ),
    (
        "What's a good way to remember people's names?",
        "Repeat the name when you are introduced, use it once in the conversation, and "
        "link it to something vivid about the person. Writing it down afterwards helps "
        "too. Most of us forget because we were not really listening the first time.",
    ),
]

DATES = ["3 March 2025", "21 April 2025", "9 June 2025", "28 July 2025", "15 September 2025"]


def build(seed: int = 13) -> dict[str, object]:
    rng = random.Random(seed)
    users = []
    for ui, name in enumerate(USERS):
        facts = rng.sample(range(len(FACTS)), 22)
        cues = rng.sample(range(len(CUES)), 5)
        fillers = list(range(len(FILLER)))
        rng.shuffle(fillers)
        # Spread everything over the sessions: cues early, facts anywhere, fillers between.
        plan: list[list[tuple[str, int]]] = [[] for _ in DATES]
        for ci in cues:
            plan[rng.randrange(2)].append(("cue", ci))
        for fi in facts:
            plan[rng.randrange(len(DATES))].append(("fact", fi))
        for n, fi in enumerate(fillers):
            plan[n % len(DATES)].append(("filler", fi))
        turns: list[dict[str, str]] = []
        questions: list[dict[str, object]] = []

        def say(
            session: int, speaker: str, content: str, name: str = name, turns: list = turns
        ) -> str:
            ref = f"{name.lower()}-{len(turns)}"
            turns.append(
                {
                    "ref": ref,
                    "session": f"{name.lower()}-s{session}",
                    "date": DATES[session],
                    "speaker": speaker,
                    "content": content,
                }
            )
            return ref

        for si, items in enumerate(plan):
            rng.shuffle(items)
            for what, i in items:
                if what == "filler":
                    ask, answer = FILLER[i]
                    say(si, name, ask)
                    say(si, "assistant", answer)
                elif what == "cue":
                    cue, trigger = CUES[i]
                    ref = say(si, name, cue)
                    say(si, "assistant", "That sounds like a useful thing to know about yourself.")
                    questions.append({"text": trigger, "gold": [ref], "group": "cue-trigger"})
                else:
                    group, evidence, slots, question, reply = FACTS[i]
                    x = slots[ui % len(slots)]
                    if group == "assistant":
                        say(si, name, evidence)
                        ref = say(si, "assistant", reply.format(x=x))
                    else:
                        ref = say(si, name, evidence.format(x=x))
                        say(si, "assistant", reply)
                    questions.append({"text": question, "gold": [ref], "group": group})
        users.append(
            {
                "id": f"u{ui}",
                "name": name,
                "split": "dev" if ui < len(USERS) // 2 else "test",
                "turns": turns,
                "questions": questions,
            }
        )
    return {
        "about": "memvault's own retrieval set (bench/data/make_shapes.py); text written "
        "for this project. Users u0-u3 are the dev half, u4-u7 the test half.",
        "users": users,
    }


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

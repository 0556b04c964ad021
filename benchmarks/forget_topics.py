"""What `forget(about=...)` takes: the fact in either language, and not a bystander whose context names the topic.

    python -m benchmarks.forget_topics [--out benchmarks/results/forget_topics.json]

A small labelled set written for this measurement (English and Chinese, 12
topics; `ADDED`, 12 more, written for the other language's rule before it was, and
reported apart). Each case is one user with: the fact said in the topic's language
(`same`), the same fact said in the other language (`other`), an unrelated
memory stored as the answer to a turn that named the topic (`bystander`: its
*context* mentions the topic, its text does not), and unrelated memories
(`unrelated`). `forget(about=topic, dry_run=True)` with the default model says
what would go; reported: the share of `same` and `other` facts taken, and the
share of `bystander` and `unrelated` memories taken (should be 0).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hindsight_core import Hindsight  # noqa: E402
from benchmarks.harness import write_results  # noqa: E402

# (topic, fact in the topic's language, the same fact in the other language,
#  (a turn naming the topic, an unrelated reply stored with that turn as its context))
CASES = [
    ("my card PIN", "My card PIN is 4921.", "我的银行卡密码是4921。",
     ("What was my card PIN again?", "I will book the dentist for Tuesday morning.")),
    ("my home address", "I live at 12 Rua das Flores in Porto.", "我住在波尔图的花街12号。",
     ("Can you remind me of my home address later?", "The quarterly report is due next Friday.")),
    ("my blood type", "My blood type is O negative.", "我的血型是O型阴性。",
     ("Should I tell the clinic my blood type?", "Please order more printer paper for the office.")),
    ("my salary", "My salary is 85,000 euros a year.", "我的年薪是八万五千欧元。",
     ("Don't mention my salary to anyone.", "My daughter starts piano lessons in September.")),
    ("my ex-husband", "My ex-husband Mark lives in Leeds now.", "我的前夫马克现在住在利兹。",
     ("I don't want to talk about my ex-husband.", "Let's plan the team offsite for early June.")),
    ("my medication", "I take 20 mg of sertraline every morning.", "我每天早上服用20毫克舍曲林。",
     ("Keep my medication private please.", "The garden needs watering twice a week in summer.")),
    ("我的护照号码", "我的护照号码是E12345678。", "My passport number is E12345678.",
     ("我的护照号码别告诉别人。", "周末我们去爬山吧。")),
    ("我的体重", "我现在的体重是七十公斤。", "I weigh seventy kilograms now.",
     ("别再提我的体重了。", "明天下午三点开项目会。")),
    ("我的病情", "我被诊断出有二型糖尿病。", "I was diagnosed with type 2 diabetes.",
     ("我的病情不要告诉我老板。", "我喜欢在咖啡里加燕麦奶。")),
    ("我女朋友", "我女朋友叫林小雨，她是护士。", "My girlfriend is Lin Xiaoyu, she is a nurse.",
     ("我女朋友的事先别说。", "下个月我要去上海出差。")),
    ("我的银行账户", "我的银行账户在招商银行，尾号6688。", "My bank account is with China Merchants Bank, ending 6688.",
     ("我的银行账户信息要保密。", "我最喜欢的电影是《千与千寻》。")),
    ("我的住址", "我住在北京朝阳区建国路88号。", "I live at 88 Jianguo Road, Chaoyang District, Beijing.",
     ("我的住址你记得吗？", "这周六我要给妈妈过生日。")),
]
#: written for red team finding 10 (a topic forgotten in one language only), before the rule that takes the
#: other language was: the check that it holds beyond the 12 cases it was looked at on
ADDED = [
    ("my phone number", "My phone number is 0612 345 678.", "我的手机号码是0612 345 678。",
     ("Do you still have my phone number?", "The car needs new tyres before winter.")),
    ("my allergy", "I am allergic to penicillin.", "我对青霉素过敏。",
     ("Tell the doctor about my allergy.", "We should repaint the kitchen in spring.")),
    ("my son's school", "My son goes to Riverside Primary School.", "我儿子在河畔小学上学。",
     ("Which school is my son at again?", "I want to learn to play the cello.")),
    ("my email password", "My email password is bluefalcon77.", "我的邮箱密码是bluefalcon77。",
     ("Never repeat my email password.", "The concert starts at eight tonight.")),
    ("my therapist", "I see my therapist Dr Weber every Tuesday.", "我每周二去看心理医生韦伯医生。",
     ("Don't bring up my therapist.", "Remind me to buy batteries for the remote.")),
    ("my car loan", "I still owe the bank 12,000 euros on my car loan.", "我的车贷还欠银行一万二千欧元。",
     ("My car loan is nobody's business.", "Let's try the new ramen place downtown.")),
    ("我的生日", "我的生日是三月十四号。", "My birthday is on March 14th.",
     ("我的生日你还记得吗？", "下周三要交水电费。")),
    ("我的月薪", "我每个月工资一万五千元。", "My monthly salary is 15,000 yuan.",
     ("我的月薪别告诉同事。", "我想周末去看电影。")),
    ("我的前男友", "我的前男友叫张伟，在深圳工作。", "My ex-boyfriend Zhang Wei works in Shenzhen.",
     ("别再提我的前男友了。", "明天早上记得给花浇水。")),
    ("我的宗教信仰", "我信仰佛教。", "I am a Buddhist.",
     ("我的宗教信仰不要对外说。", "这个月要去银行办卡。")),
    ("我的抑郁症", "我去年被诊断出抑郁症，一直在吃药。", "I was diagnosed with depression last year and have been on medication since.",
     ("我的抑郁症别告诉家里人。", "周五下午有个团队聚餐。")),
    ("我的信用卡欠款", "我欠了信用卡三万块钱。", "I owe 30,000 yuan on my credit card.",
     ("我的信用卡欠款先别提。", "帮我查一下明天的天气。")),
]
UNRELATED = ["I prefer window seats on long flights.", "我每天早上跑步五公里。",
             "My favourite football team is FC Porto.", "我的猫叫豆豆。"]


def run(cases: list) -> dict:
    """`forget(about=topic, dry_run=True)` for each case, one user each; what it would take, by kind."""
    taken = {"same": 0, "other": 0, "bystander": 0, "unrelated": 0}
    total = {"same": 0, "other": 0, "bystander": 0, "unrelated": 0}
    misses: list[dict] = []
    with Hindsight(location=":memory:") as memory:
        for i, (topic, same, other, (turn, reply)) in enumerate(cases):
            user = f"user-{i}"
            ids = {"same": [memory.write(same, user_id=user, force=True).record.id],
                   "other": [memory.write(other, user_id=user, force=True).record.id],
                   "bystander": [memory.write(reply, user_id=user, force=True, context=turn).record.id],
                   "unrelated": [memory.write(t, user_id=user, force=True).record.id for t in UNRELATED]}
            gone = {r.id for r in memory.forget(user_id=user, about=topic, dry_run=True).removed}
            for kind, wanted in ids.items():
                total[kind] += len(wanted)
                hit = [m for m in wanted if m in gone]
                taken[kind] += len(hit)
                should = kind in ("same", "other")
                if (len(hit) != len(wanted)) if should else hit:
                    misses.append({"topic": topic, "kind": kind, "taken": len(hit), "of": len(wanted)})
    return {"cases": len(cases), "taken": taken, "of": total,
            "share_taken": {k: round(taken[k] / total[k], 3) for k in taken}, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/forget_topics.json")
    args = parser.parse_args()
    report = {"benchmark": "forget_topics", **run(CASES), "added": run(ADDED)}
    result = write_results(Path(args.out), report, __file__)
    print(json.dumps({"share_taken": result["share_taken"], "added": result["added"]["share_taken"],
                      "misses": result["misses"] + result["added"]["misses"]}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

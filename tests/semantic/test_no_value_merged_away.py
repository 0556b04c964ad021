"""Nothing new is merged away: a statement that differs from an earlier one in one number, name, date, place or
negation is a new statement (and the newer value), in English and Chinese; one that says the same thing again,
in the same words, is merged into it as a repeat."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hindsight_core import Hindsight

#: (a statement with a slot, the value said first, the value said later): one number, name, date, place or negation
PAIRS = [
    ("The PIN for my gym locker is {}.", "4471", "4472"),
    ("My flight to Lisbon leaves at {} on Friday.", "7:40", "7:45"),
    ("Our standup starts at {} every weekday.", "9:00", "9:30"),
    ("The wifi password at the cabin is {}.", "pine-cone-72", "pine-cone-27"),
    ("My badge number at work is {}.", "A-1182", "A-1128"),
    ("The rent for the flat is {} euros a month.", "1,250", "1,350"),
    ("I run {} kilometres every Sunday morning.", "10", "12"),
    ("My parking spot at the office is number {}.", "41", "14"),
    ("The storage unit's gate code is {}.", "0915", "0951"),
    ("I take {} milligrams of vitamin D a day.", "1000", "2000"),
    ("My team lead is {}.", "Marco Rossi", "Sara Rossi"),
    ("My dentist is Dr {} at the Elm Street clinic.", "Patel", "Okafor"),
    ("I walk our dog with {} in the evenings.", "Jonas", "Tobias"),
    ("The project codename is {}.", "Heron", "Falcon"),
    ("Send the weekly report to {} every Friday.", "Priya", "Pedro"),
    ("My sister {} lives next door.", "Anna", "Hanna"),
    ("The client contact for Acme is {}.", "Li Wei", "Li Na"),
    ("We host the app on {}.", "Heroku", "Render"),
    ("My editor of choice is {}.", "VS Code", "Neovim"),
    ("Our code lives on {}.", "GitHub", "GitLab"),
    ("My passport expires on {}.", "3 March 2029", "3 May 2029"),
    ("The wedding is on {}.", "12 June", "19 June"),
    ("My car's MOT is due on {}.", "14 October", "24 October"),
    ("The lease ends on {}.", "31 August", "31 July"),
    ("My next dentist appointment is on {}.", "Tuesday the 4th", "Thursday the 6th"),
    ("The team offsite is on {}.", "2026-05-12", "2026-05-21"),
    ("I'm on call the week of {}.", "March 2", "March 9"),
    ("The conference talk is on {}.", "day one", "day two"),
    ("My birthday dinner is on {}.", "Saturday", "Sunday"),
    ("The quarterly review falls on {}.", "the 15th", "the 16th"),
    ("I live in {} with my partner.", "Porto", "Braga"),
    ("Our office is in {}.", "Berlin Mitte", "Berlin Kreuzberg"),
    ("My gym is the one on {}.", "King Street", "Queen Street"),
    ("The kids go to school in {}.", "Leeds", "York"),
    ("We spend August in {} every year.", "Brittany", "Normandy"),
    ("My bank branch is the one in {}.", "Bath", "Bristol"),
    ("The storage unit is in {}.", "Hackney", "Camden"),
    ("I commute to {} by train.", "Utrecht", "Leiden"),
    ("Our data centre is in {}.", "Frankfurt", "Dublin"),
    ("My parents live in {}.", "Cork", "Galway"),
    ("I {}eat meat.", "", "don't "),
    ("I {}drink coffee after lunch.", "", "never "),
    ("The invoice {}includes VAT.", "", "no longer "),
    ("I {}want reminders before meetings.", "", "don't "),
    ("We {}use feature flags in production.", "", "don't "),
    ("My son {}takes the school bus.", "", "doesn't "),
    ("I {}work from home on Fridays.", "", "don't "),
    ("The meeting room {}has a projector.", "", "no longer "),
    ("I {}like spicy food.", "", "don't "),
    ("I {}check email on weekends.", "", "never "),
    ("我健身房储物柜的密码是{}。", "4471", "4472"),
    ("我每天早上{}到公司。", "八点", "九点"),
    ("我们的站会每天{}开始。", "九点", "九点半"),
    ("我每个月房租是{}元。", "4500", "5400"),
    ("我的工号是{}。", "A1182", "A1128"),
    ("我每周跑{}公里。", "20", "25"),
    ("我家的门禁密码是{}。", "0915", "0951"),
    ("我的车位号是{}。", "B-041", "B-014"),
    ("我一天喝{}杯水。", "六", "八"),
    ("我的会员卡号是{}。", "88123", "88132"),
    ("我的组长是{}。", "王磊", "王蕾"),
    ("我的牙医是{}医生。", "陈", "林"),
    ("周报每周五发给{}。", "李娜", "李楠"),
    ("我们公司用{}办公。", "飞书", "钉钉"),
    ("我们的代码放在{}上。", "GitHub", "GitLab"),
    ("我女儿的钢琴老师是{}。", "张老师", "周老师"),
    ("项目的代号是{}。", "白鹭", "苍鹰"),
    ("我每天{}上班。", "开车", "坐地铁"),
    ("我的房东是{}。", "刘先生", "赵先生"),
    ("我们团队的产品经理是{}。", "小何", "小贺"),
    ("我的护照{}到期。", "2029年3月", "2029年5月"),
    ("婚礼定在{}。", "6月12日", "6月19日"),
    ("我的体检约在{}。", "周二", "周四"),
    ("租约{}到期。", "8月31日", "7月31日"),
    ("季度复盘会在{}。", "15号", "16号"),
    ("我{}值班。", "三月第一周", "三月第二周"),
    ("年会定在{}。", "1月20日", "1月27日"),
    ("孩子的家长会在{}。", "下周一", "下周三"),
    ("我的生日聚餐在{}。", "周六", "周日"),
    ("签证面试约在{}。", "4月2日", "4月9日"),
    ("我们的办公室在{}。", "北京", "上海"),
    ("我住在{}。", "杭州", "苏州"),
    ("我父母住在{}。", "成都", "重庆"),
    ("我的健身房在{}。", "人民路", "解放路"),
    ("孩子在{}上学。", "海淀", "朝阳"),
    ("我们每年暑假去{}。", "青岛", "大连"),
    ("我的银行卡是在{}办的。", "南京", "无锡"),
    ("我们的服务器在{}机房。", "深圳", "广州"),
    ("我每天坐车去{}。", "浦东", "徐汇"),
    ("我老家在{}。", "湖南", "湖北"),
    ("我{}吃香菜。", "", "不"),
    ("我{}喝咖啡。", "", "不再"),
    ("这张发票{}含税。", "", "不"),
    ("我{}需要会议提醒。", "", "不"),
    ("周五我{}在家办公。", "", "不"),
    ("我{}吃辣。", "", "不"),
    ("孩子{}坐校车。", "", "不"),
    ("会议室{}有投影仪。", "", "没"),
    ("我周末{}看工作邮件。", "", "不"),
    ("我{}开车上班。", "", "不再"),
]


@pytest.mark.model
def test_a_changed_value_is_never_merged_away_and_a_repeat_still_is(tmp_path, real_embedder, clock):
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        for n, (template, first, later) in enumerate(PAIRS):
            user = f"user-{n}"
            memory.write(template.format(first), user_id=user, timestamp=clock())
            memory.write(template.format(later), user_id=user, timestamp=clock() + timedelta(days=20))
            memory.write(template.format(later), user_id=user, timestamp=clock() + timedelta(days=30))
        lost, repeats_kept_apart = [], []
        for n, (template, first, later) in enumerate(PAIRS):
            held = {r.raw_content: r for r in memory.memories(user_id=f"user-{n}")}
            if template.format(later) not in held:
                lost.append(template.format(later))
            elif held[template.format(later)].confirmations != 2 or len(held) != 2:
                repeats_kept_apart.append(template.format(later))
    assert len(PAIRS) >= 100
    assert lost == [] and repeats_kept_apart == []

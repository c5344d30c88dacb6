"""Writes ``zh.json``: a Chinese retrieval set in the format of ``shapes.json``.

Why: memvault's users write Chinese first, and the English sets say little about how
recall behaves on text without spaces. Twenty-four users talk with an assistant over
six to twelve sessions each; most turns are chatter and long generic answers, and each
question is one of four shapes:

* ``similar-events``: many short notes about similar events (meetings, classes,
  appointments), each note one attribute of one event; the question asks one attribute
  of one event in other words, so only the event's name tells the notes apart;
* ``paraphrase``: a fact the user told once, asked back with synonyms;
* ``multi-turn``: a decision spread over a short exchange ("就选第二个吧");
* ``assistant``: the answer is in something the assistant said.

All text is written for this project (Apache-2.0, like the repository). Users z0-z11
are the dev half, z12-z23 the test half. Deterministic (a fixed seed); run it to
regenerate the file, and with ``--check`` to print the set's statistics and a
character-bigram BM25 baseline:

    python bench/data/make_zh.py [--check]
"""

# The tables are Chinese text, and each CJK character counts twice toward the line limit:
# ruff: noqa: E501

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent / "zh.json"


def opts(text: str) -> list:
    """'a|b/c' -> ['a', ('b', 'c')]: the tables' slot values, one per '|', parts split by '/'."""
    return [tuple(v.split("/")) if "/" in v else v for v in text.split("|")]


# fmt: off
USERS = (
    "张伟 王芳 李静 刘洋 陈晨 杨帆 赵磊 黄敏 周婷 吴昊 徐佳 孙悦 "
    "马超 朱琳 胡军 郭敏 何欣 高远 林晓 罗丹 梁宇 宋雨 郑凯 谢瑶"
).split()
MONTHS = (
    "January February March April May June July August September October November December"
).split()

# ---------------------------------------------------------------- similar events
# (name, alias used by some questions, kind, topics)
EVENTS = [
    ("项目周会", "项目组每周的例会", "work", opts("上线排期|接口联调的进度|测试环境的问题")),
    ("预算评审会", "审预算的那个会", "work", opts("明年的人力预算|服务器采购|差旅费超支")),
    ("季度复盘会", "季度总结会", "work", opts("三季度的销售数据|客户流失原因|下季度目标")),
    ("需求评审", "过需求的会", "work", opts("会员积分改版|搜索页重做|消息推送策略")),
    ("技术分享会", "内部技术沙龙", "work", opts("缓存设计|灰度发布的经验|大模型在客服上的应用")),
    ("客户对接会", "跟甲方碰头的会", "work", opts("合同里的交付时间|二期报价|验收标准")),
    ("新人培训", "新员工入职培训", "work", opts("公司制度和报销流程|代码规范|安全意识")),
    ("年终述职", "年底的述职答辩", "work", opts("全年业绩|明年的个人规划|团队管理")),
    ("供应商谈判", "和供货商的那次谈判", "work", opts("包装材料降价|账期延长|交货周期")),
    ("Jira 迁移评审", "迁 Jira 的评审", "work", opts("权限怎么迁|工作流改造|历史工单清理")),
    ("OKR 对齐会", "对 OKR 的会", "work", opts("下半年的 OKR|各组目标的依赖|指标怎么量化")),
    ("部门团建", "部门出去玩那次", "work", opts("烧烤加飞盘|密室逃脱|农家乐采摘")),
    ("瑜伽课", "练瑜伽", "class", opts("肩颈放松|核心力量|呼吸和冥想")),
    ("钢琴课", "学琴", "class", opts("车尔尼练习曲|踏板的用法|考级曲目")),
    ("游泳课", "游泳培训", "class", opts("蛙泳换气|自由泳打腿|踩水")),
    ("烘焙课", "做蛋糕的课", "class", opts("戚风蛋糕|可颂起酥|蛋黄酥")),
    ("英语角", "练口语的聚会", "class", opts("旅行英语|面试常见问题|电影台词")),
    ("摄影沙龙", "拍照交流活动", "class", opts("人像布光|街头扫街|后期调色")),
    ("书法课", "练字的课", "class", opts("颜体楷书|隶书入门|章法布局")),
    ("驾校练车", "练车", "class", opts("侧方停车|坡道起步|夜间灯光")),
    ("牙医复诊", "看牙", "med", opts("补牙后的检查|洗牙|智齿拔不拔")),
    ("年度体检", "体检", "med", opts("胃镜|甲状腺B超|抽血查血脂")),
    ("中医理疗", "做理疗", "med", opts("针灸|拔罐|腰椎推拿")),
    ("眼科复查", "查眼睛", "med", opts("眼压|散瞳验光|干眼症")),
    ("读书会", "读书小组的聚会", "social", opts("《百年孤独》|《活着》|《三体》第二部")),
    ("同学聚会", "老同学聚餐", "social", opts("毕业十周年|给班主任过生日|商量凑钱资助母校")),
    ("表妹婚礼", "表妹的喜酒", "social", opts("伴郎伴娘的分工|迎亲流程|敬酒环节")),
    ("家长会", "学校开的家长会", "social", opts("期中成绩|春游安排|近视防控")),
    ("羽毛球约球", "打羽毛球", "social", opts("双打分组|业余比赛报名|换新球拍")),
    ("爬山活动", "周末爬山", "social", opts("香山环线|夜爬看日出|新手路线")),
    ("乐队排练", "排练", "social", opts("年会要演的两首歌|新写的副歌|鼓和贝斯对拍子")),
    ("社区志愿活动", "当志愿者那次", "social", opts("给老人量血压|垃圾分类宣传|旧衣回收")),
    ("画展开幕", "看画展", "social", opts("莫奈的睡莲|当代水墨|青年插画师作品")),
]
HOSTS = {
    "work": opts("赵经理|刘总|技术部的老陈|产品经理小林|HR 王姐|财务的周姐|吴磊"),
    "class": opts("李老师|孙教练|钱老师|外教 Mike|何老师|蒋教练"),
    "med": opts("陈医生|黄主任|林大夫|一位姓许的医生"),
    "social": opts("班长许阳|群主阿梅|表姨|老郑|队长小唐|社区的马阿姨"),
}
PLACES = {
    "work": opts("三楼大会议室|五楼的小会议室|线上腾讯会议|客户公司十二楼|园区B座报告厅|公司楼下的咖啡厅|望京的分公司"),
    "class": opts("少年宫二楼|小区会所|徐汇那边的工作室|体育中心|社区活动中心|人民公园东门|商场五楼的培训机构"),
    "med": opts("市一医院门诊楼|社区卫生服务中心|中医院三楼|爱尔眼科|口腔诊所"),
    "social": opts("海底捞中关村店|市图书馆三楼|学校大礼堂|滨江公园南门|老地方那家川菜馆|798的一个展厅|香山北门"),
}
BRING = {
    "work": opts("笔记本电脑|上个月的报表|工牌|打印好的方案|U盘和转接头"),
    "class": opts("水杯和毛巾|学员卡|上节课的作业|笔和本子"),
    "med": opts("医保卡|上次的病历|之前的片子|身份证"),
    "social": opts("充电宝|雨伞|一件外套|水和零食"),
    # events whose things to bring are their own
    "部门团建": opts("运动鞋|防晒霜|换洗衣服"),
    "瑜伽课": opts("瑜伽垫|速干衣"),
    "游泳课": opts("泳镜泳帽|拖鞋"),
    "烘焙课": opts("围裙|保鲜盒"),
    "表妹婚礼": opts("现金红包|伴手礼"),
    "爬山活动": opts("登山杖|头灯"),
    "读书会": ["一本自己喜欢的书"],
    "画展开幕": ["邀请函"],
}
TIMES = opts("周三下午三点|下周一上午十点|这周六早上八点半|每周四晚上七点|15号下午两点|月底那个周五晚上|周日上午九点|明天中午十二点|下周二下午四点半|本周五晚上七点半|28号早上九点|下个月3号上午|周一早上八点|周二晚上八点|国庆后第一个周末")
# (attribute, note templates, question templates); {e} event name, {x} value, {a} alias/name
ATTRS = [
    ("time",
     ["{e}定在{x}。", "记一下，{e}是{x}。", "{e}的时间改成{x}了。", "刚收到通知，{e}{x}开始。"],
     ["{a}是哪天几点？", "我什么时候要去{a}？", "{a}约的是啥时候来着？", "{a}几点开始？"]),
    ("place",
     ["{e}的地点是{x}。", "{e}安排在{x}。", "{e}换到{x}了，别走错。", "通知说{e}去{x}。"],
     ["{a}在哪儿？", "我得去哪里参加{a}？", "{a}的场地是哪？", "{a}是在什么地方来着？"]),
    ("host",
     ["{e}这回是{x}负责。", "{e}找的是{x}。", "{e}由{x}来安排。"],
     ["{a}是谁牵头的？", "{a}归谁管？", "{a}要找哪位？"]),
    ("topic",
     ["{e}这次的内容是{x}。", "{e}主要安排了{x}。", "这回{e}围绕{x}。"],
     ["{a}这次搞什么？", "{a}主要弄哪些事？", "{a}的主题是什么？"]),
    ("bring",
     ["{e}记得带{x}。", "去{e}得准备好{x}。", "{e}要自备{x}。"],
     ["{a}需要拿什么东西？", "参加{a}前要备好啥？", "去{a}别忘了什么？"]),
]
MENTIONS = [
    "上次{e}拖了快一个小时，好累。", "{e}那边又拉了个新群。", "有点不想去{e}了。",
    "{e}的笔记我还没整理完。", "昨天{e}上认识了一个挺有意思的人。", "{e}总算结束了，松口气。",
]
ACKS = [
    "好的，记下了。", "收到，已经帮你记好。",
    "明白，需要的话我可以提前提醒你。", "好的，这条我记住了，到时候别忘了看看天气和路况。",
    "记下了，如果有变动再告诉我就行。",
]

# ---------------------------------------------------------------- paraphrase facts
# (reply group, the user's statement, [question without, with a shared word], slot values)
FACTS = [
    ("health", "医生说我对{0}过敏，以后一点都不能沾。", ["有什么东西是我吃了身体会出问题的？", "我对哪种食物过敏？"],
     opts("芒果|花生|虾蟹|牛奶|菠萝|猕猴桃|鸡蛋")),
    ("life", "上周末终于搬到{0}了，上班路上能省四十分钟。", ["我如今住在哪一片？", "我搬去了哪个区域？"],
     opts("浦东张江|海淀五道口|南山科技园|西湖区文三路|天河体育中心旁边|成都玉林|江宁大学城")),
    ("family", "家里新添了一只{0}，我们给它起名叫{1}。", ["我屋里那个毛孩子是什么动物？", "家里新来的小家伙叫什么名字？"],
     opts("橘猫/豆豆|柯基/糯米|布偶猫/可乐|仓鼠/团子|柴犬/馒头|金毛/芝麻")),
    ("work", "我把{0}的工作辞了，这个月底是最后一天。", ["我准备告别的是哪个东家？", "我从哪家单位辞职了？"],
     opts("字节|外资银行|设计院|培训机构|4S店|律所|网易")),
    ("family", "我闺女今年{0}了，九月份上{1}。", ["我家女儿现在几岁？", "我闺女秋天开学读什么？"],
     opts("五岁/幼儿园大班|七岁/小学二年级|十二岁/初一|三岁/托班|九岁/四年级|十五岁/高一")),
    ("health", "体检报告出来了，{0}，医生让我少吃{1}。", ["上次查身体哪项指标不太好？", "体检结果哪里有问题？"],
     opts("血脂偏高/油炸的东西|有轻度脂肪肝/肥肉和甜食|尿酸高/海鲜和啤酒|血糖有点高/米饭和甜点|胆固醇超标/动物内脏|血压偏高/咸菜腌肉")),
    ("life", "我现在每周{0}三次，已经坚持半年了。", ["我平常靠什么锻炼身体？", "我每周坚持的运动是什么？"],
     opts("游泳|打羽毛球|夜跑|练拳击|攀岩|骑车")),
    ("work", "为了明年去{0}读研，我报了个{1}班。", ["我打算出国念书的目的地是哪？", "我准备去哪个国家读研？"],
     opts("德国/德语|日本/日语|法国/法语|韩国/韩语|西班牙/西语|荷兰/雅思")),
    ("family", "我爸下个月要做{0}手术，我请了一周假回{1}陪他。", ["我父亲要开的是什么刀？", "我爸要做的是什么手术？"],
     opts("白内障/安庆|膝关节置换/湖南老家|心脏支架/哈尔滨|胆囊切除/潮州|腰椎/洛阳|甲状腺/绵阳")),
    ("health", "我从小就受不了{0}的味道，一闻就想吐。", ["有什么菜是我一口都不愿意碰的？", "我受不了哪种东西的味道？"],
     opts("香菜|芹菜|苦瓜|羊肉|榴莲|臭豆腐|茴香")),
    ("life", "我们家刚提了一辆{0}，下周去上牌。", ["我们新入手的汽车是什么型号？", "家里刚提的是什么车？"],
     opts("比亚迪汉|特斯拉 Model Y|理想L7|小鹏P7|凯美瑞|大众ID.4|问界M7")),
    ("family", "我和我对象是{0}的时候在{1}认识的。", ["我跟另一半当初在什么场合遇见的？", "我和对象是在哪认识的？"],
     opts("大三/学校辩论队|二十五岁/朋友的婚礼上|刚工作/公司年会|读研/实验室|高中/补习班|毕业旅行/青旅")),
    ("life", "最近迷上了{0}，周末基本都耗在这上面。", ["我空闲的时候喜欢干嘛？", "我周末都在忙活什么爱好？"],
     opts("拼乐高|手冲咖啡|钩针编织|剧本杀|露营|写毛笔字|钓鱼")),
    ("health", "这阵子总是凌晨{0}点多才睡得着，白天特别困。", ["我晚上一般几点入眠？", "我最近几点才睡得着？"],
     opts("两|三|一|四")),
    ("work", "我现在在{0}当{1}，干了快五年了。", ["我是做哪一行的？", "我现在在哪儿工作，干的什么？"],
     opts("一家三甲医院/护士|游戏公司/策划|银行/客户经理|出版社/编辑|中学/物理老师|律所/律师助理|物流公司/调度")),
    ("work", "我在攒钱，打算{0}。", ["我省吃俭用是为了什么？", "我攒钱打算干什么？"],
     opts("明年付首付|带爸妈去趟冰岛看极光|换一台 MacBook Pro|开一家小面馆|读个在职 MBA|给孩子报夏令营")),
    ("family", "我哥在{0}开了家{1}，生意还不错。", ["我兄长是做什么买卖的？", "我哥开的是什么店？"],
     opts("成都/火锅店|杭州/奶茶店|昆明/民宿|苏州/花店|长沙/汽修铺|青岛/海鲜排档")),
    ("health", "上个月打球把{0}扭伤了，到现在还没好利索。", ["我哪个部位之前弄伤了？", "打球时我扭到了哪里？"],
     opts("脚踝|膝盖|腰|手腕|左肩")),
    ("family", "国庆打算带爸妈去{0}玩一个礼拜。", ["十一假期我要陪父母去哪？", "国庆带爸妈去哪玩？"],
     opts("云南大理|桂林阳朔|新疆伊犁|西安|厦门鼓浪屿|张家界|青海湖")),
    ("work", "我在准备{0}，每天下班刷两个小时题。", ["我晚上用功是为了哪场考？", "我每天下班刷题在准备什么？"],
     opts("考研|公务员考试|托福|注会|法考|教资面试")),
    ("health", "我已经把{0}戒了，坚持一个多月了。", ["我最近断掉了哪个习惯？", "我戒掉了什么？"],
     opts("奶茶|烟|可乐|咖啡|宵夜|睡前刷短视频")),
    ("life", "我们团队写文档全用{0}，换别的都不习惯。", ["我们组协作记笔记靠什么软件？", "我们团队用什么写文档？"],
     opts("Notion|飞书|语雀|Confluence|石墨文档|腾讯文档")),
    ("life", "旧手机摔碎了屏，索性换了台{0}。", ["我眼下用的是什么机子？", "我换的新手机是哪款？"],
     opts("iPhone 15|华为 Mate 60|小米14|OPPO Find X7|Pixel 8|荣耀Magic6")),
    ("family", "外婆今年{0}岁了，每天还自己去菜市场。", ["我姥姥多大年纪了？", "外婆今年多大岁数？"],
     opts("八十七|九十二|七十九|八十四|九十五")),
    ("work", "下个月起我要调到{0}分公司，负责{1}。", ["我工作要被派到哪座城市？", "我要调去哪个分公司？"],
     opts("深圳/华南市场|武汉/仓储|重庆/西南渠道|合肥/新工厂的质检|新加坡/海外客服|沈阳/东北销售")),
    ("life", "我是{0}的铁杆粉丝，每场比赛都不落下。", ["我支持哪支球队？", "我是哪个队的铁杆粉丝？"],
     opts("湖人|皇马|国安|申花|巴萨|曼联|勇士")),
    ("life", "我在 B 站弄了个{0}的账号，每周更新一期，已经有两千多人关注了。", ["我在 B 站上发的是什么类型的视频？", "我在 B 站做的账号是讲什么的？"],
     opts("做菜|健身教学|城市骑行|修复旧家具|讲历史故事")),
    ("family", "我和对象打算{0}办婚礼。", ["我们的喜酒准备什么时候摆？", "我和对象打算什么时候办婚礼？"],
     opts("明年五月|今年国庆|春节前|后年开春|十月中旬")),
]
REPLIES = {
    "health": [
        "身体的事不能马虎。建议你把这个情况记在手机备忘录里，外出吃饭时主动告诉服务员，平时注意作息和饮食，定期复查。如果出现明显不舒服，别硬扛，尽早去医院。",
        "这种情况其实挺常见的，一开始调整会有点不习惯，过两三周就顺了。关键是循序渐进，别一下子要求自己太多，同时多喝水、多走动，给身体一点时间适应。",
        "谢谢你告诉我这些。生活习惯的改变往往比药物更持久，你可以每周简单记录一下感受，看看哪些做法真的有用，下次去医院时也能给医生提供更具体的信息。",
    ],
    "life": [
        "听起来不错！新东西刚上手的时候最有意思，也最容易三分钟热度。给自己定一个小目标，比如每周固定一个时间，慢慢就成了习惯。有什么心得也可以随时跟我聊聊。",
        "挺好的选择。生活里这种看起来很小的改变，常常会让日常舒服很多。过一段时间再回头看看，哪些地方满意、哪些还想调整，下次做决定会更有把握。",
        "恭喜！刚开始可能会有一些要适应的细节，别着急，一点点摸索就好。如果遇到具体的问题，把情况描述得详细一点，我可以帮你一起想办法。",
    ],
    "family": [
        "家里的事最牵动人心。多和家人沟通，把需要分担的事情提前说开，谁负责什么清清楚楚，大家心里都踏实。也别忘了照顾好自己，你状态好了，才能更好地陪伴他们。",
        "真替你们高兴。这样的时刻值得好好记录，拍些照片、写几句话，过几年再翻出来会很有味道。有需要准备的事情，可以列个清单，一项项来。",
        "能感觉到你很在乎家人。这种时候，陪伴本身就很有分量，不一定要做多么隆重的事，一起吃顿饭、聊聊天，对方都能感受到。",
    ],
    "work": [
        "这是个不小的决定。建议先把手头的事情交接清楚，留好联系方式，和同事们好聚好散。新阶段开始前给自己留几天休息，调整好状态再出发。",
        "目标明确就成功了一半。可以把大目标拆成每周能完成的小任务，记在日历上，每完成一项打个勾，积累的成就感会推着你往前走。遇到瓶颈时换个方法，别硬耗。",
        "加油！变化总会带来一些不确定，但也意味着新的机会。头一个月多观察、多提问，把遇到的新情况记下来，慢慢就会找到自己的节奏。",
    ],
}

# ---------------------------------------------------------------- multi-turn decisions
# "list": the assistant lists options, the user picks one by its place.
# (ask, intro, [(option, note)], outro, [question without, with a shared word])
LISTS = [
    ("下个月我妈六十大寿，送点什么好？预算两千以内。", "这个预算挺宽裕的，给你几个方向：",
     opts("按摩椅垫/看电视时垫着，肩颈舒服|羊绒围巾/颜色选素一点，秋冬天天能戴|一套好茶具/适合爱喝茶、爱招待客人的长辈|一组全家福写真/留念意义大，一家人都能参与|智能手环/能看心率和睡眠，你也放心|一次全面体检套餐/实用，也让她安心"),
     "无论选哪样，附上一张手写卡片，长辈往往最在意这份心意。", ["给母亲祝寿的礼物最后挑了什么？", "我妈大寿最后送什么？"]),
    ("周五要请两个客户吃饭，你帮我想想去哪类馆子？", "可以按谈事的需要来挑：",
     opts("粤菜馆/口味清淡，包间安静|日料店/环境体面，按位上菜不用操心点菜|本帮菜馆/有地方特色，外地客人觉得新鲜|西餐厅/节奏慢，适合长时间聊|私房菜/小而精，显得用心|老字号烤鸭店/名气大，客人回去也好讲"),
     "提前问清楚对方有没有忌口，订位时要个安静的包间。", ["招待合作方那顿饭最后去的是哪类餐厅？", "请客户吃饭最后定了哪类馆子？"]),
    ("冰箱里只剩鸡蛋、番茄、土豆和一点肉末，晚饭做什么？", "这几样能搭出不少家常菜：",
     opts("番茄炒蛋/十分钟搞定，很下饭|醋溜土豆丝/切细一点，酸脆开胃|肉末蒸蛋/嫩滑，老人孩子都爱吃|土豆烧肉末/炖软了拌饭很香|番茄土豆汤/一锅出，暖胃|蛋炒饭/有剩饭的话最省事"),
     "如果还有一根葱，出锅前撒一点，味道会提升不少。", ["食材不多的那个傍晚，我定了做哪个菜？", "冰箱快空的那天晚饭做了什么？"]),
    ("新项目要起个代号，给几个建议？", "起代号最好简短、好念、不容易和别的项目撞名：",
     opts("北极星/寓意方向明确|青鸟/轻快好念|远航/适合周期长的项目|萤火/小而亮，适合探索性的尝试|磐石/稳重，适合基础设施|启明/有开端的意思"),
     "定下来之后在文档和群名里统一用，免得大家叫法不一样。", ["那个刚立项的工作最后叫什么名字？", "新项目最后用了哪个代号？"]),
    ("想买台笔记本写代码，帮我列几个选择？", "看你的预算和习惯，这几台都值得考虑：",
     opts("MacBook Air/轻薄，续航长|ThinkPad X1 Carbon/键盘手感好，接口全|联想小新 Pro/性价比高|戴尔 XPS 13/做工扎实，屏幕好|华为 MateBook X/和手机互联方便"),
     "内存建议至少 16G，跑容器和 IDE 会从容很多。", ["写程序用的电脑我最后挑了哪台？", "写代码的笔记本最后选了哪台？"]),
]
# "pair": the user names two choices, the assistant talks at length, the user picks one.
# (ask with {a} {b}, [(a, b)], reply, [(the referring turn, "a" or "b")], [questions])
PAIRS = [
    ("大学室友下周来出差，她说{a}或者{b}晚上都有空。", opts("周二/周四|周三/周五|周一/周三|周四/周六"),
     "老朋友难得见一面，时间其实不用太纠结。可以优先选第二天不用早起的那天，聊得晚一点也没关系；地点挑一个安静、能坐久的地方，别选排队太久的网红店。提前一天再确认一下，出差的人行程常常会变。",
     [("那就{b}吧，我那天不用加班。", "b"), ("还是定前面那天吧。", "a"), ("行，就{a}。", "a")],
     ["跟以前同寝的老友吃饭最后约在星期几？", "和大学室友约在哪天见？"]),
    ("五一想带孩子出去几天，{a}和{b}有点拿不定主意。", opts("青岛/厦门|成都/重庆|苏州/扬州|桂林/长沙|大连/烟台"),
     "两个地方都适合亲子游。假期人多，建议尽早订酒店，行程别排太满，每天一两个重点就够了；孩子小的话，优先考虑交通方便、有公园和博物馆的城市，午后留出休息时间，大人孩子都不会太累。",
     [("听你这么一说，还是去{b}吧。", "b"), ("那就前一个吧，离家近点。", "a")],
     ["劳动节假期全家最后去哪儿玩？", "五一带孩子最后去了哪？"]),
    ("想学一门编程语言做数据分析，{a}和{b}先学哪个？", opts("Python/R|R/Python"),
     "两门都能做数据分析。Python 用途更广，读一个表格只要一行：`df = pd.read_csv('sales.csv')`；R 在统计和画图上很顺手，学术圈用得多。如果以后还想做自动化或者写接口，一般建议先学通用性更强的那门。",
     [("行，那我先学{a}。", "a"), ("那就从后面那个开始。", "b")],
     ["做数据分析我决定先学哪门语言？", "数据分析先学哪门编程语言？"]),
    ("准备换 iPhone 16，{a} 和 {b} 哪个够用？", opts("128G/256G|256G/512G"),
     "主要看你拍多少视频、装多少游戏。照片视频都同步到云端的话，小容量也够；常拍 4K 视频或者不想每月付云存储的钱，就选大一点。手机一般用三四年，买的时候宁可留点余量。",
     [("那就买大一点的那个。", "b"), ("还是选小的吧，我照片都存云上。", "a")],
     ["我的新 iPhone 最后挑了多大存储？", "换手机最后选了多大容量？"]),
    ("看了两套房：一套在{a}，离地铁近但小；一套在{b}，大但要倒车。", opts("西二旗/回龙观|徐家汇/莘庄|福田/龙华|滨江/萧山|光谷/汉口"),
     "租房时通勤和面积常常只能二选一。可以算一笔账：每天多出的通勤时间乘以一年的工作日，再想想多出的空间对你有多重要。另外去看房时留意采光、隔音和房东是否好沟通，这些住进去才知道多要紧。",
     [("想了一晚上，定了第二套。", "b"), ("还是租近地铁的那套吧。", "a")],
     ["最终租下的屋子在哪一带？", "看的两套房最后租了哪套？"]),
    ("暑假给儿子报{a}还是{b}？他两个都想学。", opts("编程课/游泳班|围棋班/街舞班|美术班/篮球训练营|机器人课/书法班"),
     "孩子两样都想学是好事。可以看看哪一门更需要集中的时间：暑假时间整块，适合需要连续练习的项目；另一门可以放到学期里每周一次。也要留出玩的时间，假期太满孩子容易烦。",
     [("那就先报前面那个，另一个明年再说。", "a"), ("听你的，报{b}。", "b")],
     ["孩子这个暑期最终上的是什么班？", "暑假给儿子报了什么？"]),
    ("我们组在讨论要不要把代码仓库从 {a} 迁到 {b}。", [["GitLab", "GitHub"]],
     "迁移前可以列一张清单：\n1. 权限和成员怎么映射；\n2. CI 配置要不要重写；\n3. issue 和合并请求的历史能不能带走；\n4. 自建服务的运维成本。\n如果现在用着没什么痛点，迁移的收益未必抵得上折腾的成本。",
     [("算了，不折腾了，继续用现在这个。", "a"), ("那就迁吧，下个月动手。", "b")],
     ["代码托管最后是留在 GitLab 还是搬走了？", "代码仓库最后迁没迁？"]),
    ("想办张健身卡，家附近有{a}和{b}两家。", opts("乐刻/超级猩猩|威尔士/一兆韦德|小区会所的健身房/商场里新开的那家"),
     "选健身房最重要的是离家近、营业时间合适，去得勤比器械多重要得多。先去两家各体验一次，看看高峰期人多不多、淋浴干不干净；别一上来就办长期卡，月卡或者季卡更灵活。",
     [("试了一下，还是{a}顺眼。", "a"), ("就去后面那家了。", "b")],
     ["我锻炼最终选了哪家场馆？", "健身卡最后办在哪家？"]),
]
# share of questions asked in the wording that shares (almost) no word with the gold
HARD = {"paraphrase": 0.7, "multi-turn": 0.6, "assistant": 0.6, "similar-events": 1.0}
ORDINAL = opts("第一个|第二个|第三个")
LIST_REFS = ["{o}挺好，就它了。", "我觉得{o}最合适，就按这个来。", "就选{o}吧。"]
FOLLOW = ["好的，祝一切顺利！", "好嘞，有需要再找我。", "不错的决定，到时候告诉我感觉怎么样。"]

# ---------------------------------------------------------------- assistant's answers
# (the user's request, the assistant's answer with {0}, [questions], slot values)
ADVICE = [
    ("最近想补补历史，有没有适合入门的书？",
     "入门的话，我比较推荐《{0}》。篇幅不算长，讲故事的方式很好读，不需要太多背景知识；读完再顺着书里的线索去找更专门的著作，比一上来啃大部头轻松得多。",
     ["你之前推荐我看哪本书来着？", "你推荐过一本入门的历史书，叫什么？"], opts("万历十五年|人类简史|枪炮、病菌与钢铁|明朝那些事儿|叫魂")),
    ("周末想看部电影放松一下，别太烧脑的。",
     "那就看《{0}》吧。节奏轻松，笑点自然，结尾又有点温暖，适合窝在沙发上一个人看，也适合和家人一起看。",
     ["上回你建议我看的那部片子叫什么？", "你推荐的那部轻松电影是哪部？"], opts("海蒂和爷爷|寻梦环游记|触不可及|小森林|菊次郎的夏天")),
    ("天天对着电脑，眼睛又干又涩怎么办？",
     "可以试试{0}。另外每盯屏幕二十分钟就看看远处二十秒，屏幕亮度别调太高，晚上早点休息；一直不缓解的话，还是去医院查一下。",
     ["我视力疲劳那次，你让我怎么缓解？", "眼睛干涩你建议我试试什么？"], opts("热敷眼罩|不含防腐剂的人工泪液|把显示器放得比视线低一点|开加湿器")),
    ("家里周末来客人，做个什么硬菜撑场面？",
     "推荐做{0}。看着隆重，步骤其实不复杂，大部分可以提前备好，客人到了再下锅，端上桌很有面子，也不会把你困在厨房里。",
     ["请客那回你建议我做哪道菜？", "来客人做硬菜，你推荐的是哪道？"], opts("可乐鸡翅|红烧狮子头|清蒸鲈鱼|糖醋排骨|梅菜扣肉|啤酒鸭")),
    ("有三天假，想找个人少点的地方走走。",
     "可以考虑{0}。这个季节游客不算多，交通也方便，三天刚好慢慢逛，住在老城区附近，晚上出门散步也舒服。",
     ["那次休假你提议我去哪个地方？", "三天假你推荐我去哪儿？"], opts("霞浦|婺源|宏村|泉州|景德镇|平遥古城")),
    ("有什么好用的待办清单 App？我老忘事。",
     "可以试试 {0}。它能按项目分类、设提醒，手机电脑同步，免费版就够日常用；关键是养成每天早上花两分钟看一眼的习惯。",
     ["整理任务你提议用哪款应用？", "你推荐的待办清单 App 是哪个？"], opts("Todoist|滴答清单|Things 3|Microsoft To Do")),
    ("git 里怎么撤销上一次提交，但保留改动？",
     "用 `git reset --soft HEAD~1` 就行，它会撤掉最近一次提交，改动仍然留在暂存区。如果已经推到远程，最好别改历史，改用 `git revert` 生成一个反向提交，免得影响同事。",
     ["想撤回刚才那次提交又不丢修改，你教我敲什么命令？", "撤销上一次提交的命令是什么？"], [""]),
    ("膝盖不太好，还能做什么运动？",
     "比较推荐{0}。对关节冲击小，又能练到腿部肌肉，肌肉强了反而能保护膝盖。刚开始强度低一点，每次三十分钟左右，疼了就停。",
     ["关节有毛病的话你建议我练什么？", "膝盖不好你推荐什么运动？"], opts("游泳|骑固定单车|椭圆机|太极拳|水中快走")),
    ("阳台朝北，光线一般，养什么花好？",
     "{0}会比较合适。它对光照要求不高，散射光就能长得不错，浇水见干见湿，不用天天管；放在离窗户近的位置，叶子会更精神。",
     ["晒不到太阳的地方你说适合种什么？", "阳台朝北你说养什么花？"], opts("绿萝|龟背竹|虎尾兰|吊兰|文竹")),
    ("我想开个卖手工饼干的网店，帮我起个名字？",
     "叫「{0}」怎么样？好记、有温度，也容易让人联想到手作和烘焙。注册商标和开社交账号之前，记得先查查有没有重名。",
     ["你替我想的店名是什么？", "饼干网店你起的名字是什么？"], opts("小麦日记|饼干邮局|慢烤时光|甜度刚好|黄油星球")),
    ("每个月能存下两千块，放哪里比较好？",
     "如果还没有应急金，建议先放进{0}，攒够三到六个月的生活费再考虑别的。投资前想清楚这笔钱多久不用，期限越长，能承受的波动越大。",
     ["结余你说应该先搁在哪？", "每月存下的钱你建议先放哪？"], opts("货币基金|银行活期理财|国债|大额存单|短债基金")),
    ("背单词总是背了就忘，有什么方法？",
     "可以试试{0}。核心是按遗忘规律复习：今天背的，明天、三天后、一周后各看一遍，每次只花几分钟，比一次背很多效果好得多。",
     ["记英语词汇你推荐我用什么方法？", "背单词你推荐什么方法？"], opts("Anki 卡片|艾宾浩斯复习表|词根词缀法|把单词放进例句里记")),
    ("晚上老失眠，有什么办法能快点睡着？",
     "最有效的通常是{0}。坚持两周再看效果，下午以后别喝咖啡浓茶；睡不着就起来做点无聊的事，有困意再回床上，别躺着硬熬。",
     ["睡不好那阵子你教我的办法是什么？", "失眠的话你说最有效的办法是什么？"], opts("固定每天起床的时间|睡前一小时不看手机|把卧室温度调低一点|白天多晒太阳")),
    ("Excel 里怎么把两列名字合并成一列？",
     "在新的一列里输入 `={0}`，然后往下拖填充柄就行。中间要加空格的话，在两个单元格之间拼一个空格字符串。",
     ["Excel 两列并成一列，你给我的公式是啥？", "两列合并成一列的公式是什么？"], opts("A2&B2|CONCAT(A2,B2)|A2&\" \"&B2")),
    ("跟领导提加薪，怎么开口比较好？",
     "建议你{0}。谈的时候讲清楚这一年具体做成了哪些事、带来了什么结果，语气平和，给对方留考虑的时间，别拿离职当筹码。",
     ["要求涨工资的事你让我怎么准备？", "提加薪之前你建议我先做什么？"], opts("先准备一页纸的业绩清单|约在季度评估之后单独谈|先了解同岗位的市场行情")),
]

# ---------------------------------------------------------------- distractors
FILLER = [
    ("复利到底是怎么回事？", "复利就是利息也会生利息。短期内和单利差别不大，时间一长差距会非常明显，所以早点开始往往比一次投很多更重要。反过来，手续费也会复利地侵蚀收益，能省则省。"),
    ("怎么养成早起的习惯？", "先别定太狠的目标，每天比前一天早十五分钟就行。晚上固定时间上床，手机放远一点，早上起来先喝杯水、拉开窗帘晒晒光。坚持两三周，身体的节律会慢慢跟上来。"),
    ("怎么写一封礼貌的邮件推掉会议？", "先感谢对方邀请，再简单说明时间冲突没法参加，然后给个替代方案，比如会后看纪要或者另约十分钟沟通。三四句话就够，清楚友好比长篇解释更显得尊重。"),
    ("家里的绿植老是养死，有什么诀窍？", "大多数盆栽是被浇死的，而不是渴死的。浇水前用手指探一下土，干了再浇，浇就浇透；根据植物的习性给够光照，花盆底部一定要有排水孔。少而精比满屋子植物更容易照顾。"),
    ("下午总犯困，怎么提高效率？", "午饭后犯困很正常。可以把需要动脑的事放在上午，下午安排些例行工作；午饭别吃太饱，饭后走十分钟，困得厉害就小睡二十分钟，比硬撑着效率高。"),
    ("章鱼有什么冷知识吗？", "章鱼有三颗心脏，血液是蓝色的，大部分神经元分布在腕足里，每条腕足都能相对独立地做出反应。它们会开罐子、走迷宫，还能在一瞬间改变皮肤的颜色和纹理。"),
    ("怎么做一份简单的家庭预算？", "先列出每月固定收入，再列房租、房贷、水电这些固定支出，然后给吃饭、交通、娱乐定一个大概的额度，剩下的先存起来。过一个月对照实际花销调整，预算是草稿，不是法律。"),
    ("为什么天空是蓝色的？", "阳光里各种颜色的光都有，穿过大气时，波长短的蓝光更容易被空气分子散射到四面八方，所以我们抬头看到的天空是蓝的。日出日落时光线走的路程更长，蓝光散射掉了，天边就偏红偏橙。"),
    ("总是拖延怎么办？", "把任务拆到小得不好意思不做的第一步，比如只打开文档写一个标题。开始往往是最难的，一旦动起来就容易继续。给自己定一个二十五分钟的专注时段，手机放到另一个房间，结束后奖励自己。"),
    ("运动前拉伸好还是运动后拉伸好？", "运动前更适合做动态热身，比如开合跳、弓步走，让身体热起来；长时间的静态拉伸放在运动后效果更好，能帮助放松。比起时间点，更重要的是每次都做、长期坚持。"),
    ("总记不住别人的名字，有什么办法？", "介绍的时候把名字重复一遍，聊天中自然地叫一次，再把名字和对方的某个特点联系起来。回去后在通讯录里备注一下见面的场合。很多时候记不住，是因为第一次根本没认真听。"),
    ("纸质书和电子书哪个好？", "各有好处。纸质书翻阅、做笔记更方便，读起来也更专注；电子书携带轻便，查词、搜索很快，适合通勤时读。很多人是两者结合：深读用纸质，泛读用电子。"),
    ("泡绿茶水温多少合适？", "绿茶一般用八十度左右的水，太烫会把茶叶烫熟，味道发苦。可以先把开水倒进公道杯晾一会儿再冲。红茶和普洱则适合用刚烧开的水。"),
    ("手机电池怎么用才更耐用？", "尽量避免长时间满电或者彻底没电，电量保持在百分之二十到八十之间最好；别在高温环境下边充边玩游戏；系统里如果有优化充电的选项，打开就行。"),
    ("跑步膝盖疼是怎么回事？", "常见原因有跑量加得太快、跑姿不对、鞋子不合适，或者大腿肌肉力量不够。先减量休息几天，练练臀腿力量，换双合脚的跑鞋；如果疼痛持续或者肿胀，建议去医院看看。"),
    ("做饭新手从哪几道菜练起？", "可以从番茄炒蛋、清炒时蔬、土豆丝、蒸鱼这些开始，步骤少、容错高。先把火候和调味的基本感觉练出来，再慢慢尝试炖菜和烧菜。备菜时把料都切好再开火，会从容很多。"),
    ("番茄工作法真的有用吗？", "对很多人有用。它把时间切成二十五分钟一段，中间休息五分钟，让人更容易开始，也更容易看见自己一天到底做了多少。不过它不是万能的，需要长时间深度思考的工作，可以把时段拉长。"),
    ("面试时自我介绍怎么说比较好？", "控制在一到两分钟：先说你是谁、现在做什么，再挑两三件和岗位最相关的经历，讲清楚你做了什么、结果如何，最后说说为什么对这个职位感兴趣。提前练几遍，但别背得太死。"),
    ("英语听力怎么提高？", "选难度略高于自己水平的材料，先盲听，再对照原文，把没听懂的地方找出来反复听，最后跟读。每天二十分钟，比周末突击两小时有效。播客、美剧都可以，关键是感兴趣。"),
    ("猫为什么会发出呼噜声？", "猫在放松、满足的时候常会打呼噜，但受伤或紧张时也可能会，这更像是一种自我安抚。有研究认为呼噜的低频振动还可能有助于骨骼和组织恢复。"),
    ("周报怎么写才不空洞？", "少写“推进了”“跟进了”，多写具体结果：完成了什么、数据变化多少、遇到什么问题、需要谁支持。可以固定成“本周完成、风险、下周计划”三段，领导一眼就能看到重点。"),
    ("SQL 里怎么找出重复的记录？", "可以按要判断重复的字段分组再计数，比如 `SELECT email, COUNT(*) FROM users GROUP BY email HAVING COUNT(*) > 1;`，这样就能列出出现不止一次的邮箱。"),
    ("Python 怎么逐行读一个大文件？", "用 `with open(path, encoding='utf-8') as f:` 然后 `for line in f:` 逐行处理，这样不会一次把整个文件读进内存，处理几个 G 的日志也没问题。"),
    ("签租房合同要注意什么？", "核对房东身份和房产证，写清租金、押金、付款方式和退押条件，约定好维修责任和提前退租怎么算；入住前把家具家电拍照留档，水电燃气读数也记下来。"),
    ("出差行李怎么收拾才不乱？", "按类别用收纳袋分装：衣服、洗漱、电子产品各一袋；充电器和转换插头放在最容易拿的位置；衣服卷起来比叠着省空间。提前列一张固定清单，每次照着核对。"),
    ("冬天皮肤干得发痒怎么办？", "洗澡水别太烫，时间别太长，洗完三分钟内抹上保湿霜；室内可以开加湿器，多穿棉质衣物。如果出现大片红疹或者抓破了，最好去皮肤科看看。"),
    ("怎么挑到甜的西瓜？", "拍一拍，声音清脆、有点咚咚的回响一般比较熟；瓜蒂新鲜、底部的黄色斑块偏深黄说明在地里长得久；纹路清晰、拿起来偏沉的通常水分足。"),
    ("最近压力特别大，怎么调节？", "先试着把压力来源写下来，分成能控制的和不能控制的，只在前者上花力气。每天留一点完全属于自己的时间，哪怕只是散步十分钟；睡眠和运动是最朴素也最有效的减压方式。"),
    ("和同事意见不合怎么沟通？", "先把对方的观点复述一遍，确认你理解对了，再讲你的顾虑，尽量对事不对人。找到双方都认可的目标，再讨论路径；实在谈不拢，就把分歧点写清楚交给能拍板的人。"),
    ("上台讲话总是紧张，怎么办？", "紧张说明你在乎，这很正常。多练几遍开头的三十秒，开头顺了后面就稳了；讲之前做几次深呼吸，把注意力放在听众需要什么，而不是自己表现得怎么样。"),
    ("读书笔记怎么做比较好？", "不用抄大段原文，读完一章用自己的话写三五句概括，再记下一个你想实践的点子。过一周回头翻一翻，能说清楚的才是真正吸收了的。"),
    ("旅行拍照怎么拍得好看？", "多利用早晨和傍晚的光线，人物不要总站在正中间，试试三分法构图；拍风景时画面里加一点前景会更有层次。少拍打卡照，多拍当地人的日常，回看时更有味道。"),
    ("家里东西太多，怎么收纳？", "先断舍离再收纳：一年没用过的东西考虑送人或卖掉。同类物品放一起，常用的放在顺手的位置，用透明盒子或者贴标签，找东西会快很多。每天睡前花五分钟归位。"),
    ("狗狗总是乱叫怎么训练？", "先找原因：无聊、害怕还是想要关注。叫的时候别大声呵斥，等它安静下来再给奖励；每天保证足够的运动量，累了的狗叫得少。坚持一致的口令，全家人规则要统一。"),
    ("秋天树叶为什么会变黄？", "天气变冷、日照变短后，树叶里的叶绿素分解得比合成得快，原本被绿色盖住的叶黄素和胡萝卜素就显露出来了；有些树还会生成花青素，所以叶子会变红。"),
    ("电动车冬天续航为什么变短？", "低温会让电池的化学反应变慢，可用容量下降，再加上开暖风要耗电，续航自然缩水。出发前预热电池、尽量停在室内车库、用座椅加热代替空调，都能省一点电。"),
    ("怎么判断鸡蛋新不新鲜？", "把鸡蛋放进清水里：沉底平躺的比较新鲜，一头翘起说明放了一阵，浮起来的就别吃了。打开后蛋黄饱满、蛋清浓稠不散的也更新鲜。"),
    ("笔记本电脑风扇声音特别大，怎么办？", "多半是散热口积灰或者后台程序占用太高。先看看任务管理器里哪个进程在吃 CPU，再用气吹清一下出风口；别把电脑放在被子、沙发上用，底下垫个支架散热会好很多。"),
    ("学吉他多久能弹唱？", "每天练半小时的话，一两个月能按稳几个常用和弦，弹一些简单的歌。刚开始手指疼很正常，茧子磨出来就好了。先选自己喜欢、和弦少的歌，兴趣是最好的动力。"),
    ("怎么跟孩子讲道理他才听？", "先接住情绪，再讲道理：蹲下来和他平视，说出他的感受，比如“你很生气是吗”。等他平静了，再简短地说规则和原因，给两个可选的做法，孩子会更愿意配合。"),
]
SMALL = [
    "今天{c}好热，出门五分钟就一身汗。", "刚下班，累得不想说话。", "周末下了两天雨，哪都没去。",
    "早上地铁又挤爆了。", "中午吃了{f}，有点撑。", "今天老板夸了我一句，开心。",
    "楼上又在装修，吵了一上午。", "晚上看了场球，太精彩了。", "快递又延误了，烦。",
    "今天心情一般般。", "哈哈，你说得对。", "嗯嗯，明白了，谢谢！",
    "我再想想。", "明天要早起，先睡了。", "{c}这两天降温了，记得加衣服。",
    "又到月底了，钱包空空。", "刚跟朋友吃完{f}回来。", "最近在追一部剧，停不下来。",
    "今天走了一万五千步。",
]
# NEAR: lines that share words with the questions but answer none of them
NEAR = [
    "同事小刘说他家养了两只猫。", "朋友推荐了一本小说，还没开始看。", "我妈说也想去云南玩。",
    "听说表哥换了新工作。", "邻居家的狗晚上老叫。", "公司楼下新开了家日料店。",
    "周五晚上可能要加班。", "下周三说不定要出差。", "同事刚考完驾照，请我们喝奶茶。",
    "我朋友对花粉过敏，春天一直打喷嚏。", "隔壁组的会总是开到很晚。", "我爸最近迷上了钓鱼。",
    "小区门口的健身房在搞活动。", "昨天路过一家书店，进去逛了半天。", "我表姐下个月结婚。",
    "朋友买了台新电脑，天天跟我炫耀。", "学校群里又在通知交资料。", "有个老同学突然联系我了。",
]
SMALL_REPLIES = [
    "嗯嗯，我在呢，想聊什么都可以。", "好的，了解。", "哈哈，收到～",
    "明白啦，有需要随时找我。", "嗯，记住了。", "好嘞。",
]
CITIES = "北京 上海 广州 深圳 杭州 成都 武汉 南京 西安 重庆".split()
FOODS = "火锅 麻辣烫 烤鱼 螺蛳粉 牛肉面 寿司 烧烤 煲仔饭 披萨 小龙虾".split()
# fmt: on


def fmt(template: str, value: object) -> str:
    return template.format(*value) if isinstance(value, tuple) else template.format(value)


def dates(rng: random.Random, n: int) -> list[str]:
    day = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(150))
    out = []
    for _ in range(n):
        out.append(f"{day.day} {MONTHS[day.month - 1]} {day.year}")
        day += dt.timedelta(days=rng.randint(2, 18))
    return out


def build_user(ui: int, rng: random.Random) -> dict[str, object]:
    name, uid = USERS[ui], f"z{ui}"
    n_sessions = rng.randint(6, 12)
    plan: list[list[tuple]] = [[] for _ in range(n_sessions)]

    def put(item: tuple, session: int | None = None) -> None:
        plan[rng.randrange(n_sessions) if session is None else session].append(item)

    # similar events: 7 events, 4 notes each; four of them asked about
    events = rng.sample(EVENTS, 7)
    asked = set(rng.sample(range(7), 4))
    for ei, (ev, alias, kind, topics) in enumerate(events):
        home = rng.randrange(n_sessions)
        values = {
            "time": rng.choice(TIMES),
            "place": rng.choice(PLACES[kind]),
            "host": rng.choice(HOSTS[kind]),
            "topic": rng.choice(topics),
            "bring": rng.choice(BRING.get(ev, BRING[kind])),
        }
        attrs = rng.sample(ATTRS, 4)
        q_attr = rng.randrange(4) if ei in asked else -1
        for ai, (attr, notes, questions) in enumerate(attrs):
            note = rng.choice(notes).format(e=ev, x=values[attr])
            q = None
            if ai == q_attr:
                q = [rng.choice(questions).format(a=alias if rng.random() < 0.5 else ev)]
            put(("note", note, q), home if rng.random() < 0.6 else None)
        for mention in rng.sample(MENTIONS, rng.randint(1, 2)):
            put(("mention", mention.format(e=ev)))

    for fact in rng.sample(FACTS, 4):
        put(("fact", fact, rng.choice(fact[3])))
    for li in rng.sample(range(len(LISTS) + len(PAIRS)), 4):
        put(("decide", li))
    for adv in rng.sample(ADVICE, 4):
        put(("advice", adv, rng.choice(adv[3])))

    for line in rng.sample(NEAR, 8):
        put(("near", line))
    # pad with long filler exchanges and small talk up to this user's length
    size = {
        "note": 1.35,
        "mention": 1.5,
        "near": 1.5,
        "small": 1.5,
        "fact": 2,
        "advice": 2,
        "filler": 2,
        "decide": 3.5,
    }
    target, turns_so_far = rng.randint(150, 240), sum(size[i[0]] for p in plan for i in p)
    pool, chat = rng.sample(FILLER, len(FILLER)), []
    while turns_so_far < target:
        if pool and rng.random() < 0.6:
            put(("filler", pool.pop()))
            turns_so_far += 2
        else:
            chat = chat or rng.sample(SMALL, len(SMALL))
            put(("small", chat.pop().format(c=rng.choice(CITIES), f=rng.choice(FOODS))))
            turns_so_far += 1.5

    day = dates(rng, n_sessions)
    turns: list[dict[str, str]] = []
    questions: list[dict[str, object]] = []

    def say(si: int, speaker: str, content: str) -> str:
        ref = f"{uid}-{len(turns)}"
        turns.append(
            {
                "ref": ref,
                "session": f"{uid}-s{si}",
                "date": day[si],
                "speaker": speaker,
                "content": content,
            }
        )
        return ref

    def ask(texts: list[str], gold: list[str], group: str) -> None:
        text = texts[0] if rng.random() < HARD[group] else texts[1]
        questions.append({"text": text, "gold": gold, "group": group})

    def decide(si: int, li: int) -> None:
        if li < len(LISTS):
            request, intro, options, outro, question = LISTS[li]
            chosen = rng.sample(options, 3)
            k = rng.randrange(3)
            say(si, name, request)
            body = "\n".join(f"{i + 1}. {o}：{n}；" for i, (o, n) in enumerate(chosen))
            listed = say(si, "assistant", f"{intro}\n{body}\n{outro}")
            ordinal = "最后那个" if k == 2 and rng.random() < 0.3 else ORDINAL[k]
            ref = say(si, name, rng.choice(LIST_REFS).format(o=ordinal))
            ask(question, [listed, ref], "multi-turn")
        else:
            request, pairs, reply, refs, question = PAIRS[li - len(LISTS)]
            a, b = rng.choice(pairs)
            first = say(si, name, request.format(a=a, b=b))
            say(si, "assistant", reply)
            ref = say(si, name, rng.choice(refs)[0].format(a=a, b=b))
            ask(question, [first, ref], "multi-turn")

    for si, items in enumerate(plan):
        rng.shuffle(items)
        for item in items:
            kind = item[0]
            if kind == "note":
                ref = say(si, name, item[1])
                if item[2]:
                    ask(item[2], [ref], "similar-events")
                if rng.random() < 0.35:
                    say(si, "assistant", rng.choice(ACKS))
            elif kind in ("mention", "near", "small"):
                say(si, name, item[1])
                if rng.random() < 0.5:
                    say(si, "assistant", rng.choice(SMALL_REPLIES))
            elif kind == "filler":
                say(si, name, item[1][0])
                say(si, "assistant", item[1][1])
            elif kind == "fact":
                group, stmt, question, _values = item[1]
                ref = say(si, name, fmt(stmt, item[2]))
                say(si, "assistant", rng.choice(REPLIES[group]))
                ask(question, [ref], "paraphrase")
            elif kind == "advice":
                request, answer, question, _values = item[1]
                say(si, name, request)
                ask(question, [say(si, "assistant", answer.format(item[2]))], "assistant")
            else:
                decide(si, item[1])
                if rng.random() < 0.5:
                    say(si, "assistant", rng.choice(FOLLOW))
    return {
        "id": uid,
        "name": name,
        "split": "dev" if ui < 12 else "test",
        "turns": turns,
        "questions": questions,
    }


def build(seed: int = 20250301) -> dict[str, object]:
    rng = random.Random(seed)
    users = [build_user(ui, rng) for ui in range(len(USERS))]
    return {
        "about": "memvault's Chinese retrieval set (bench/data/make_zh.py); all text written "
        "for this project and released under the repository's Apache-2.0 licence. Question "
        "groups: similar-events, paraphrase, multi-turn, assistant. Users z0-z11 are the dev "
        "half, z12-z23 the test half (held out).",
        "users": users,
    }


# ---------------------------------------------------------------- checks
def grams(text: str) -> list[str]:
    out: list[str] = []
    for run in re.findall(r"[\u4e00-\u9fff]+|[a-z0-9]+", text.lower()):
        if run.isascii() or len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def bm25_rank(
    docs: list[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75
) -> list[int]:
    n = len(docs)
    avg = sum(map(len, docs)) / n
    df = Counter(g for d in docs for g in set(d))
    tfs = [Counter(d) for d in docs]
    scores = []
    for d, tf in zip(docs, tfs, strict=True):
        s = 0.0
        for g in query:
            if tf[g]:
                idf = math.log(1 + (n - df[g] + 0.5) / (df[g] + 0.5))
                s += idf * tf[g] * (k1 + 1) / (tf[g] + k1 * (1 - b + b * len(d) / avg))
        scores.append(-s)
    return sorted(range(n), key=scores.__getitem__)


def check(data: dict) -> None:
    rows: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    mixed = total = 0
    gold_share = []
    for u in data["users"]:
        refs = [t["ref"] for t in u["turns"]]
        docs = [grams(t["content"]) for t in u["turns"]]
        by_ref = dict(zip(refs, docs, strict=True))
        gold_all = {g for q in u["questions"] for g in q["gold"]}
        gold_share.append(len(gold_all) / len(refs))
        for q in u["questions"]:
            total += 1
            mixed += bool(re.search(r"[A-Za-z]", q["text"]))
            qg = grams(q["text"])
            gold_grams = set().union(*(by_ref[g] for g in q["gold"]))
            overlap = sum(g in gold_grams for g in qg) / max(1, len(qg))
            top = [refs[i] for i in bm25_rank(docs, qg)[:10]]
            hit5 = float(any(g in top[:5] for g in q["gold"]))
            rec10 = sum(g in top for g in q["gold"]) / len(q["gold"])
            for key in (
                (q["group"], u["split"]),
                (q["group"], "all"),
                ("all", u["split"]),
                ("all", "all"),
            ):
                rows.setdefault(key, []).append((overlap, hit5, rec10))
    turns = [len(u["turns"]) for u in data["users"]]
    print(
        f"users {len(data['users'])}, turns {sum(turns)} ({min(turns)}-{max(turns)} a user), "
        f"questions {total}, mixed Chinese+English questions {mixed} ({mixed / total:.1%}), "
        f"gold turns per user {min(gold_share):.1%}-{max(gold_share):.1%} of turns"
    )
    print("| group | split | n | bigram overlap q->gold | BM25 hit@5 | BM25 recall@10 |")
    print("|---|---|---|---|---|---|")
    for (group, split), vals in sorted(rows.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        n = len(vals)
        o, h, r = (sum(v[i] for v in vals) / n for i in range(3))
        print(f"| {group} | {split} | {n} | {o:.2f} | {h:.2f} | {r:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print counts and a BM25 baseline")
    args = parser.parse_args()
    data = build()
    OUT.write_text(
        json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
    )
    if args.check:
        check(data)


if __name__ == "__main__":
    main()
